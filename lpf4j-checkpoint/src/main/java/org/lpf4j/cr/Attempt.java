package org.lpf4j.cr;

import org.lpf4j.Context;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.CrossJvmObjects;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which run of a job a process is in, seen by {@link Checkpoints} on the process's thread: the
 * first run (0) or a retry of {@link Restarts} (1, 2, …), and where the {@code memory} module's
 * checkpoints of the job live. Outside {@link Restarts}, a process is in attempt 0 and the memory
 * shelves are this JVM's.
 */
final class Attempt {
    private static final ThreadLocal<Attempt> CURRENT = new ThreadLocal<>();
    private static final Attempt OUTSIDE = new Attempt(0, false, new ConcurrentHashMap<>(), "", null);

    private final int number;
    private final boolean resume;
    private final Map<String, MemoryStore.Shelf> shelves;
    private final String runId;
    /** Where process 0 reports its resumption for {@link Restarts.Outcome}, or null (outside, or in another JVM). */
    private final java.util.List<Restarts.Resumption> resumptions;

    Attempt(int number, boolean resume, Map<String, MemoryStore.Shelf> shelves, String runId,
            java.util.List<Restarts.Resumption> resumptions) {
        this.number = number;
        this.resume = resume;
        this.shelves = shelves;
        this.runId = runId;
        this.resumptions = resumptions;
    }

    /** Process 0: records where this attempt resumed (kept only in the JVM that called {@link Restarts}). */
    void resumed(Restarts.Resumption r) {
        if (resumptions != null) resumptions.add(r);
    }

    /** @return whether every attempt resumes, the first too (an explicit restart of a stopped job) */
    boolean resume() { return resume; }

    /** @return the id of the {@link Restarts} call this attempt belongs to ("" outside one) */
    String runId() { return runId; }

    static Attempt current() {
        Attempt a = CURRENT.get();
        return a == null ? OUTSIDE : a;
    }

    int number() { return number; }

    /**
     * The memory checkpoints of runs whose {@link Restarts} call is in another JVM, or whose
     * attempts a host framework makes ({@link Restarts#attempt}), by run id: kept for the run's
     * retries until this JVM's processes of it return, the oldest dropped beyond
     * {@link #RUNS_ELSEWHERE} (a run whose last attempt failed).
     */
    private static final Map<String, Map<String, MemoryStore.Shelf>> ELSEWHERE = new java.util.LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Map<String, MemoryStore.Shelf>> eldest) {
            return size() > RUNS_ELSEWHERE;
        }
    };
    private static final int RUNS_ELSEWHERE = 16;

    /** @return the number of jobs whose memory checkpoints this JVM keeps outside a {@link Restarts} call of its own (for tests) */
    static int keptShelves() {
        synchronized (ELSEWHERE) {
            return OUTSIDE.shelves.size() + ELSEWHERE.values().stream().mapToInt(Map::size).sum();
        }
    }

    /** @return the shelves of run {@code runId} in this JVM, for a process whose {@link Restarts} call is elsewhere */
    private static Map<String, MemoryStore.Shelf> elsewhere(String runId) {
        synchronized (ELSEWHERE) {
            return ELSEWHERE.computeIfAbsent(runId, k -> new ConcurrentHashMap<>());
        }
    }

    /** A process of run {@code runId} whose {@link Restarts} call is elsewhere returned: no retry will read its checkpoints. */
    private static void doneElsewhere(String runId) {
        synchronized (ELSEWHERE) {
            ELSEWHERE.remove(runId);
        }
    }

    MemoryStore.Shelf shelf(CheckpointModule.Job job) {
        return shelves.computeIfAbsent(job.program() + "|" + job.nprocs(), k -> new MemoryStore.Shelf());
    }

    /** Outside {@link Restarts}: drops the memory checkpoints of a job (no retry can read them). */
    void forget(CheckpointModule.Job job) {
        if (this == OUTSIDE) shelves.remove(job.program() + "|" + job.nprocs());
    }

    /**
     * The SPMD function of one attempt: runs the program with this attempt current on the
     * process's thread. Shipped to other JVMs with the attempt's number only (their memory
     * shelves are their own: {@link #elsewhere}).
     */
    static final class Run implements Spmd, CrossJvmObjects.Carrier {
        private static final long serialVersionUID = 1L;
        private final Spmd program;
        private final int number;
        private final boolean resume;
        private final String runId;
        private final transient Map<String, MemoryStore.Shelf> shelves;
        private final transient java.util.List<Restarts.Resumption> resumptions;

        Run(Spmd program, int number, boolean resume, String runId, Map<String, MemoryStore.Shelf> shelves,
            java.util.List<Restarts.Resumption> resumptions) {
            this.program = program;
            this.number = number;
            this.resume = resume;
            this.runId = runId;
            this.shelves = shelves;
            this.resumptions = resumptions;
        }

        @Override
        public void run(Context ctx) throws Exception {
            Attempt saved = CURRENT.get();
            CURRENT.set(new Attempt(number, resume, shelves != null ? shelves : elsewhere(runId), runId, resumptions));
            try {
                program.run(ctx);
                if (shelves == null) doneElsewhere(runId);
            } finally {
                if (saved == null) CURRENT.remove(); else CURRENT.set(saved);
            }
        }

        @Override
        public Object program() { return program; }
    }
}
