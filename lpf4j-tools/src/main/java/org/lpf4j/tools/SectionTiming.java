package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.Spmd;


/**
 * Wraps an SPMD program so that each process runs it on a {@link TimedContext} and records its
 * supersteps and times; after the section has ended, {@link #summary()} describes it.
 *
 * <p>Each process writes only its own array entries; the engine's end of the section (the
 * {@code exec} returning) makes them visible to the caller. On an engine whose processes run in
 * other JVMs (MPI), only the processes of this JVM record (pid 0 and whoever shares its JVM): the
 * summary reports what it saw and says which pids it did not see, never a count it does not know.
 *
 * <p>With a {@link Profile} ({@code lpf run --profile}) each process runs on a
 * {@link ProfilingContext} instead and, after its program returned, writes its superstep records
 * where the profile says; the profile travels with the wrapped function, so this holds in every
 * JVM. Without one, nothing beyond the counts above is recorded.
 */
final class SectionTiming {
    private final int p;
    private final long[] syncs;
    private final long[] sectionNanos;
    private final long[] syncNanos;
    /** Whether each pid recorded here (false for a process that ran in another JVM). */
    private final boolean[] seen;
    private int actualP;
    /** Where each process leaves its superstep records ({@code lpf run --profile}), or null. */
    private final Profile profile;
    /**
     * The timings of this JVM's runs by id: a copy of the program that another rank of this JVM
     * runs (the multi-JVM engines ship every rank its copy, also to ranks that share a JVM) records
     * into the same object.
     */
    private static final java.util.Map<String, SectionTiming> HERE = new java.util.concurrent.ConcurrentHashMap<>();
    private final String id = java.util.UUID.randomUUID().toString();

    /** @param p the number of processes asked for (the section may get fewer) */
    SectionTiming(int p) {
        this(p, null);
    }

    /**
     * @param p       the number of processes asked for (the section may get fewer)
     * @param profile if not null, every process also records its supersteps and writes them
     *                where the profile says ({@link Profile#save}); null costs nothing
     */
    SectionTiming(int p, Profile profile) {
        this.p = p;
        this.profile = profile;
        this.syncs = new long[p];
        this.sectionNanos = new long[p];
        this.syncNanos = new long[p];
        this.seen = new boolean[p];
    }

    /**
     * @param program the user's SPMD program
     * @return an SPMD function that runs {@code program} on a timed context of each process and
     *         records into this object; serializable if {@code program} is (a copy in another
     *         JVM runs the program without recording)
     */
    Spmd wrap(Spmd program) {
        HERE.put(id, this);
        return new Timed(program, this, id, profile);
    }

    /** Ends the copies' recording into this object (after the section). */
    void close() { HERE.remove(id); }

    private synchronized void record(int pid, int nprocs, long nanos, TimedContext timed) {
        if (pid == 0) actualP = nprocs;
        if (pid >= p) return;
        sectionNanos[pid] = nanos;
        syncs[pid] = timed.syncs();
        syncNanos[pid] = timed.syncNanos();
        seen[pid] = true;
    }

    /** The wrapping SPMD function; the sink is not shipped to other JVMs, the profile is. */
    private static final class Timed implements Spmd, org.lpf4j.spi.kit.CrossJvmObjects.Carrier {
        private static final long serialVersionUID = 1L;
        private final Spmd program;
        private final transient SectionTiming sink;
        private final String sinkId;
        private final Profile profile;

        @Override
        public Object program() { return program; }

        Timed(Spmd program, SectionTiming sink, String sinkId, Profile profile) {
            this.program = program;
            this.sink = sink;
            this.sinkId = sinkId;
            this.profile = profile;
        }

        @Override
        public void run(Context ctx) throws Exception {
            org.lpf4j.Machine machine = profile == null ? null : Profile.machine(ctx);
            TimedContext timed = profile == null ? new TimedContext(ctx) : new ProfilingContext(ctx);
            long t0 = System.nanoTime();
            try {
                program.run(timed);
            } finally {
                SectionTiming s = sink != null ? sink : HERE.get(sinkId); // a copy: its JVM's object, if this is rank 0's
                if (s != null) s.record(ctx.pid(), ctx.nprocs(), System.nanoTime() - t0, timed);
            }
            // only after the program returned: a failed section has no profile (and no files are left)
            if (profile != null) profile.save((ProfilingContext) timed, machine);
        }
    }

    /** @return the number of processes the section ran with (0 before it ran) */
    synchronized int processes() { return actualP; }

    /** @return supersteps (syncs) of process 0 */
    long supersteps() { return syncs[0]; }

    /** @return the section's duration, the longest of the processes recorded here, in nanoseconds */
    long sectionNanos() {
        long max = 0;
        for (int q = 0; q < recordable(); q++) if (seen[q]) max = Math.max(max, sectionNanos[q]);
        return max;
    }

    /** @return the pids that could have recorded: those of the section below the size asked for */
    private int recordable() { return Math.min(p, Math.max(1, actualP)); }

    /**
     * @return e.g. {@code "p=4  supersteps=3  time=1.234 ms  per superstep=411.3 µs  (in sync: 20.1 µs)"};
     *         per-superstep figures are the section time, and pid 0's sync time, over its syncs. If
     *         some processes ran in other JVMs, a second line says so: the time is then the longest
     *         of those recorded here, and their syncs are not compared.
     */
    synchronized String summary() {
        long steps = supersteps();
        double total = sectionNanos();
        StringBuilder b = new StringBuilder(String.format("p=%d  supersteps=%d  time=%.3f ms", actualP, steps, total / 1e6));
        if (steps > 0) {
            b.append(String.format("  per superstep=%.3f µs  (in sync: %.3f µs)",
                    total / steps / 1e3, (double) syncNanos[0] / steps / 1e3));
        }
        for (int q = 1; q < recordable(); q++) {
            if (seen[q] && syncs[q] != steps) {
                b.append(String.format("%nwarning: pid %d made %d syncs, pid 0 made %d", q, syncs[q], steps));
                break;
            }
        }
        String unseen = unseen();
        if (!unseen.isEmpty()) {
            b.append(String.format("%nnote: timed in this JVM only (%s); %s ran in other JVMs: not timed or counted here",
                    seenText(), unseen));
        }
        return b.toString();
    }

    /** @return the pids that did not record here, as ranges ("pids 1-3"), or "" */
    private String unseen() { return pids(false); }

    private String seenText() { return pids(true); }

    private String pids(boolean recorded) {
        StringBuilder b = new StringBuilder();
        int n = recordable(), count = 0;
        for (int q = 0; q < n; q++) {
            if (seen[q] != recorded || q > 0 && seen[q - 1] == recorded) continue;
            int end = q;
            while (end + 1 < n && seen[end + 1] == recorded) end++;
            if (b.length() > 0) b.append(", ");
            b.append(end == q ? Integer.toString(q) : q + "-" + end);
            count += end - q + 1;
        }
        return b.length() == 0 ? "" : (count == 1 ? "pid " : "pids ") + b;
    }
}
