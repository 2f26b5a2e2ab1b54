package org.lpf4j.spark;

import org.apache.spark.BarrierTaskContext;
import org.apache.spark.BarrierTaskInfo;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;
import org.lpf4j.cr.CheckpointDirectory;
import org.lpf4j.cr.Restarts;
import org.lpf4j.engine.net.HostedSection;
import org.lpf4j.engine.net.NetParameters;

import java.io.Serializable;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The function a {@link BspStage}'s barrier stage runs in each task: joins the section through a
 * {@link BarrierBootSession}, runs the program as the partition's process on the net engine
 * ({@link HostedSection}), drains what it returned, and hands that to Spark. Serialized into the
 * task closure with the job's secret, the run id and the parameters. Each output element goes
 * out keyed by the pid, for the shuffle that puts it into the result's partition of that pid.
 * With checkpoints in a directory and no keep policy, a section that ended well syncs once more
 * and its process 0 removes the run's checkpoints.
 */
final class BspTask<T, R>
        extends scala.runtime.AbstractFunction1<scala.collection.Iterator<T>, scala.collection.Iterator<scala.Tuple2<Integer, R>>>
        implements Serializable {
    private static final long serialVersionUID = 1L;
    private final PartitionProgram<T, R> program;
    private final byte[] secret;
    private final String runId;
    private final Map<String, String> parameters;
    private final boolean keepCheckpoints;

    BspTask(PartitionProgram<T, R> program, byte[] secret, String runId, Map<String, String> parameters,
            boolean keepCheckpoints) {
        this.program = program;
        this.secret = secret.clone();
        this.runId = runId;
        this.parameters = Map.copyOf(parameters);
        this.keepCheckpoints = keepCheckpoints;
    }

    @Override
    public scala.collection.Iterator<scala.Tuple2<Integer, R>> apply(scala.collection.Iterator<T> input) {
        BarrierTaskContext task = BarrierTaskContext.get();
        if (task == null) throw new IllegalStateException("BspStage: a task ran outside a barrier stage");
        int pid = task.partitionId(), attempt = task.stageAttemptNumber();
        BarrierTaskInfo[] tasks = task.getTaskInfos();
        String where = "BspStage " + runId + " partition " + pid + " of " + tasks.length + " (stage " + task.stageId()
                + " attempt " + attempt + ")";
        List<R> out = new ArrayList<>();
        Iterator<T> partition = scala.jdk.javaapi.CollectionConverters.asJava(input);
        List<Restarts.Resumption> resumptions = Collections.synchronizedList(new ArrayList<>());
        Throwable[] threw = new Throwable[1];
        boolean[] endedWell = new boolean[1];
        String checkpoints = "files".equals(parameters.get("lpf.cr")) && !keepCheckpoints ? parameters.get("lpf.cr.files.dir") : null;
        Spmd process = ctx -> {
            try {
                Iterator<R> result = program.run(ctx, partition);
                if (result != null) result.forEachRemaining(out::add);
            } catch (Throwable t) {
                // A FatalException out of a sync is the section's failure seen here, not this process's own.
                if (!(t instanceof FatalException)) threw[0] = t;
                throw t;
            }
            if (checkpoints != null) {
                ctx.sync(); // every process returned: no retry will need the checkpoints
                if (ctx.pid() == 0) endedWell[0] = true;
            }
        };
        try (ExecutorParameters.Applied applied = ExecutorParameters.apply(parameters, where);
             BarrierBootSession session = new BarrierBootSession(task);
             KillWatch watch = new KillWatch(task, Thread.currentThread())) {
            InetAddress bind = bindAddress(tasks[pid].address());
            HostedSection.run(session, bind, HostedSection.forAttempt(secret, attempt), "spark/" + runId,
                    Restarts.attempt(process, attempt, runId, resumptions));
        } catch (FatalException e) {
            throw failure(pid, where, e, threw[0]);
        }
        // After the section: its checkpoints are closed, so nothing writes into the directory again.
        if (endedWell[0]) removeCheckpoints(checkpoints, where);
        for (Restarts.Resumption r : resumptions) System.err.println("lpf4j spark: " + where + ": " + r);
        Integer key = pid;
        return scala.jdk.javaapi.CollectionConverters.asScala(out.stream().map(r -> new scala.Tuple2<>(key, r)).iterator());
    }

    private void removeCheckpoints(String dir, String where) {
        List<Long> left = new CheckpointDirectory(Path.of(dir)).removeAll(runId);
        if (!left.isEmpty()) System.err.println("lpf4j spark: " + where + ": could not remove checkpoints " + left + " from " + dir);
    }

    /**
     * The task's exception for a failed section. Spark's driver reports the first task failure it
     * hears of; a process that knows no cause (neither the thrower nor pid 0, to which the section
     * carries every cause) waits a moment first, so that the report names the cause. A programming
     * error says so at the end of its message (the driver then cancels the stage).
     */
    private static BspStageException failure(int pid, String where, FatalException e, Throwable own) {
        if (own != null) {
            String mark = BspStageException.isProgrammingError(own) ? " " + BspStageException.PROGRAMMING_ERROR : "";
            BspStageException b = new BspStageException(pid, where + " threw " + own + " (" + e.getMessage() + ")" + mark, own);
            if (e.getCause() != own) b.addSuppressed(e);
            return b;
        }
        if (e.getCause() != null && BspStageException.isProgrammingError(e.getCause())) {
            return new BspStageException(pid, where + " failed: " + e.getMessage() + " " + BspStageException.PROGRAMMING_ERROR, e);
        }
        if (e.getCause() == null) {
            try {
                Thread.sleep(CAUSELESS_DELAY_MILLIS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return new BspStageException(pid, where + " failed: " + e.getMessage(), e);
    }

    /** How long a task whose failure carries no cause waits before it throws. */
    private static final long CAUSELESS_DELAY_MILLIS = 1_000;

    /**
     * Interrupts the task's thread once Spark marks the task killed (a cancelled job, a failed
     * barrier stage): a process waiting in a sync then gives up (the net engine's waits check
     * the interrupt before they block) and the section fails at every process, instead of running
     * on. Polls the kill flag every 100 ms on a virtual thread of its own, until closed.
     */
    private static final class KillWatch implements AutoCloseable {
        private volatile boolean done;
        private final Thread watcher;

        KillWatch(BarrierTaskContext task, Thread taskThread) {
            watcher = Thread.ofVirtual().name("lpf4j-spark-killwatch").start(() -> {
                while (!done) {
                    if (task.isInterrupted()) {
                        taskThread.interrupt();
                        return;
                    }
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        @Override
        public void close() {
            done = true;
            watcher.interrupt();
        }
    }

    /** The executor's own address (Spark's "host:port" of the task), unless lpf.engine.net.bind says otherwise. */
    private InetAddress bindAddress(String executorAddress) {
        String host = parameters.get(NetParameters.BIND.key());
        if (host == null) {
            int colon = executorAddress.lastIndexOf(':');
            host = colon < 0 ? executorAddress : executorAddress.substring(0, colon);
        }
        try {
            return InetAddress.getByName(host.strip());
        } catch (UnknownHostException e) {
            throw new IllegalStateException("BspStage: the address to listen on, '" + host + "', does not resolve: " + e.getMessage(), e);
        }
    }
}
