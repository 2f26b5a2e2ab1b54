package org.lpf4j.spark;

import org.apache.spark.BarrierTaskContext;
import org.apache.spark.BarrierTaskInfo;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Init;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;
import org.lpf4j.cr.CheckpointDirectory;
import org.lpf4j.cr.Restarts;
import org.lpf4j.spi.boot.FenceOptions;
import org.lpf4j.engine.hybrid.HostedNode;
import org.lpf4j.engine.net.HostedSection;
import org.lpf4j.engine.net.NetParameters;

import java.io.Serializable;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * The function a {@link BspStage}'s barrier stage runs in each task: joins the section through a
 * {@link BarrierBootSession}, runs the program as the partition's process, and drains what it
 * returned, and hands that to Spark. The tasks of one executor JVM form one node of threads
 * ({@link HostedNode}: puts between them are copies, their sync a barrier) and the executors' nodes
 * meet in a net-engine section ({@link HostedSection}); with {@code executorNodes} off, or when
 * every executor runs one task, every task is a net-engine process of its own. Serialized into the
 * task closure with the job's secret, the run id, the application id and the parameters. Each
 * output element goes out keyed by the pid, for the shuffle that puts it into the result's
 * partition of that pid.
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
    /** The Spark application's id: with the stage's shape, where the probe's cached figures belong ({@link #placement}). */
    private final String application;
    private final Map<String, String> parameters;
    private final boolean keepCheckpoints;
    /** Whether the tasks of one executor form one node of threads ({@link HostedNode}) rather than net processes each. */
    private final boolean executorNodes;

    BspTask(PartitionProgram<T, R> program, byte[] secret, String runId, String application, Map<String, String> parameters,
            boolean keepCheckpoints, boolean executorNodes) {
        this.program = program;
        this.secret = secret.clone();
        this.runId = runId;
        this.application = application;
        this.parameters = Map.copyOf(parameters);
        this.keepCheckpoints = keepCheckpoints;
        this.executorNodes = executorNodes;
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
        int[][] executors = executorNodes ? groupsByExecutor(tasks) : null;
        ExecutorParameters.Applied applied;
        try {
            applied = ExecutorParameters.apply(parameters, where);
        } catch (IllegalArgumentException e) { // an unknown key or a bad value: every attempt would fail alike
            throw new BspStageException(pid, e.getMessage() + " " + BspStageException.PROGRAMMING_ERROR, e);
        } catch (IllegalStateException e) { // another stage's parameters: it may have ended by the next attempt
            throw new BspStageException(pid, e.getMessage(), e);
        }
        try (applied;
             BarrierBootSession session = new BarrierBootSession(task);
             KillWatch watch = new KillWatch(task::isInterrupted, Thread.currentThread())) {
            InetAddress bind = bindAddress(tasks[pid].address());
            Spmd resumable = Restarts.attempt(process, attempt, runId, resumptions);
            boolean asNode = executors != null && executors.length < tasks.length;
            int nodesOnHost = asNode ? nodesOnHost(tasks, executors, pid) : 0;
            String placement = placement(tasks, asNode);
            // Through Lpf.hook, as every other way into a section: lpf.debug=true (a stage parameter) checks the stage.
            Init section = (spmd, args) -> {
                if (asNode) runAsExecutorNode(session, executors, nodesOnHost, pid, bind, attempt, placement, spmd, watch);
                else HostedSection.run(session, bind, HostedSection.forAttempt(secret, attempt), placement, spmd);
            };
            Lpf.hook(section, resumable, Args.NONE);
        } catch (FatalException e) {
            throw failure(pid, where, e, threw[0]);
        }
        // After the section: its checkpoints are closed, so nothing writes into the directory again.
        if (endedWell[0]) removeCheckpoints(checkpoints, where);
        for (Restarts.Resumption r : resumptions) System.err.println("lpf4j spark: " + where + ": " + r);
        Integer key = pid;
        return scala.jdk.javaapi.CollectionConverters.asScala(out.stream().map(r -> new scala.Tuple2<>(key, r)).iterator());
    }

    /**
     * This task's process as a thread of its executor's node: the executor's tasks share memory
     * through the threads engine's queues and barrier ({@link HostedNode}); the node's leader (its
     * lowest partition) joins the other executors' leaders in a net-engine section, whose boot
     * fence the node's other tasks take part in (a Spark barrier fences every task).
     */
    private void runAsExecutorNode(BarrierBootSession session, int[][] executors, int nodesOnHost, int pid, InetAddress bind,
                                   int attempt, String placement, Spmd process, KillWatch watch) {
        Duration wait = Duration.ofMillis(NetParameters.SETUP_MILLIS.get());
        try (HostedNode.Member member = HostedNode.join(runId + "/" + attempt, executors, pid, nodesOnHost, executorOf(executors, pid).length)) {
            watch.onKill(() -> member.abort("partition " + pid + "'s task was killed"));
            int fences = HostedSection.bootFences(executors.length);
            if (!member.leads()) {
                for (int f = 0; f < fences; f++) session.fence(FenceOptions.collect());
                member.run(process, wait);
                return;
            }
            int[] leaders = new int[executors.length];
            for (int k = 0; k < leaders.length; k++) leaders[k] = executors[k][0];
            member.lead(process, wait, nodeFunction -> HostedSection.run(new LeadersSession(session, leaders, member.node(), fences),
                    bind, HostedSection.forAttempt(secret, attempt), placement, nodeFunction));
        }
    }

    /**
     * Where the stage runs, as the net engine's probe cache names it ({@link HostedSection#run}'s
     * placement): the application and the stage's shape (per host, how many tasks each executor
     * runs; whether an executor's tasks are one node), not the stage, so that every stage of the
     * application with that shape reuses the figures the first one measured (and writes no file
     * of its own under the cache directory). Costs a pass over the tasks.
     *
     * @param tasks  the stage's tasks
     * @param asNode whether the tasks of an executor form one node
     * @return e.g. {@code spark/app-20261127-0001/nodes/2.2} (one host, two executors of two tasks)
     */
    String placement(BarrierTaskInfo[] tasks, boolean asNode) {
        Map<String, List<Integer>> byHost = new LinkedHashMap<>();
        for (int[] g : groupsByExecutor(tasks)) byHost.computeIfAbsent(hostOf(tasks[g[0]].address()), h -> new ArrayList<>()).add(g.length);
        List<String> hosts = new ArrayList<>();
        for (List<Integer> executors : byHost.values()) {
            hosts.add(executors.stream().sorted(Collections.reverseOrder()).map(String::valueOf).collect(Collectors.joining(".")));
        }
        Collections.sort(hosts); // the same shape whichever partitions land where
        return "spark/" + application + "/" + (asNode ? "nodes/" : "tasks/") + String.join("_", hosts);
    }

    /**
     * @return the stage's partitions by executor (tasks of one executor report one address),
     *         executors in the order of their lowest partition, partitions ascending
     */
    static int[][] groupsByExecutor(BarrierTaskInfo[] tasks) {
        Map<String, List<Integer>> byAddress = new LinkedHashMap<>();
        for (int i = 0; i < tasks.length; i++) byAddress.computeIfAbsent(tasks[i].address(), a -> new ArrayList<>()).add(i);
        int[][] groups = new int[byAddress.size()][];
        int k = 0;
        for (List<Integer> g : byAddress.values()) groups[k++] = g.stream().mapToInt(Integer::intValue).toArray();
        return groups;
    }

    /** @return the partitions of partition {@code pid}'s executor (each task holds one task slot: the node's processors) */
    private static int[] executorOf(int[][] executors, int pid) {
        for (int[] g : executors) for (int q : g) if (q == pid) return g;
        throw new IllegalArgumentException("partition " + pid + " is in no executor's group");
    }

    /** @return how many executors run on the host of partition {@code pid}'s executor (the host part of their addresses) */
    static int nodesOnHost(BarrierTaskInfo[] tasks, int[][] executors, int pid) {
        String host = hostOf(tasks[pid].address());
        int n = 0;
        for (int[] g : executors) if (hostOf(tasks[g[0]].address()).equals(host)) n++;
        return n;
    }

    private static String hostOf(String address) {
        int colon = address.lastIndexOf(':');
        return colon < 0 ? address : address.substring(0, colon);
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
        if (BspStageException.isProgrammingError(e) || e.getCause() != null && BspStageException.isProgrammingError(e.getCause())) {
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
     * on. Polls the kill flag every 100 ms on a virtual thread of its own, until closed. An action
     * given after the kill was seen runs at once, on the caller's thread.
     */
    static final class KillWatch implements AutoCloseable {
        private volatile boolean done;
        /** Guarded by this: the action to run on a kill, and whether the kill was seen. */
        private Runnable onKill;
        private boolean killed;
        private final Thread watcher;

        KillWatch(BooleanSupplier isKilled, Thread taskThread) {
            watcher = Thread.ofVirtual().name("lpf4j-spark-killwatch").start(() -> {
                while (!done) {
                    if (isKilled.getAsBoolean()) {
                        taskThread.interrupt();
                        Runnable also;
                        synchronized (this) {
                            killed = true;
                            also = onKill;
                        }
                        if (also != null) also.run();
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

        /**
         * Also runs {@code action} when the task is killed (a node's threads do not notice an
         * interrupt while they wait in its barrier); at once if it was killed already.
         */
        void onKill(Runnable action) {
            boolean now;
            synchronized (this) {
                onKill = action;
                now = killed;
            }
            if (now) action.run();
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
