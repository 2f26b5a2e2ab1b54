package org.lpf4j.superstep;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.ForwardingContext;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A multi-JVM engine's life in one JVM of a job, once it joined, written once for every
 * transport: rank 0 returns the root context (and releases the others when its JVM ends, from a
 * shutdown hook installed once); every other rank serves the sections rank 0 starts and never
 * returns ({@link #serve} ends the JVM). The engine keeps one instance per JVM ({@link Instance}).
 *
 * <p><b>Job control.</b> Rank 0's {@code exec(p)} runs a section on the first
 * {@code n = min(p, size)} ranks: it ships the SPMD function, the symbols and its programmatic
 * parameter settings ({@link Shipment}) to ranks 1 .. n-1 in an {@link #EXEC} command and runs
 * pid 0 itself; the other ranks' JVMs adopt the settings ({@code RankZeroSettings}). A command is
 * one message of the engine's ({@link #sendCommand}): a header of three longs (kind, n, the
 * section's number) and the payload. {@link #SPLIT} lets an engine make a carrier of the first n ranks with every
 * rank ({@link #newSection}, {@link #split}); {@link #STOP} ends the other ranks when rank 0's
 * JVM ends. Each process of a section gets {@link #share} of the job's processors for its nested
 * sections.
 *
 * <p>An engine supplies its transport's part: how a command travels, how a section runs over its
 * carrier, and what starting, ending and leaving mean for it. Cost: one command per rank of a
 * section (its payload the serialized function), beside the section itself.
 */
public abstract class JobRuntime {
    /** A command: run the shipped function as a section of the first n ranks. */
    protected static final long EXEC = 1;
    /** A command: make the engine's carrier of the first n ranks (every rank takes part). */
    protected static final long SPLIT = 2;
    /** A command: rank 0's JVM ends; release this rank and exit. */
    protected static final long STOP = 3;
    /** Bytes of a command's header: kind, n, section. */
    protected static final int HEADER = 24;

    private final String engine;
    private boolean hookInstalled;
    private boolean stopped;
    /** Set while rank 0 runs a section: a shutdown then must not wait for it (see {@link #stop}). */
    private volatile boolean inSection;

    /** @param engine the engine's name, for messages and the shutdown hook's thread */
    protected JobRuntime(String engine) { this.engine = engine; }

    /** @return this JVM's rank in the job, 0 ≤ rank &lt; size */
    protected abstract int rank();

    /** @return the job's ranks */
    protected abstract int size();

    /**
     * @param size the job's processes
     * @param n    the processes of a section on the first {@code n} of them
     * @param i    a pid of that section
     * @return the processors pid {@code i} gets for its nested sections: the job's processors shared out as evenly as they go
     */
    public static int share(int size, int n, int i) {
        return size / n + (i < size % n ? 1 : 0);
    }

    /**
     * The engine's root: rank 0 gets the root context; other ranks serve and never return.
     *
     * @return rank 0's root context
     */
    public final Context root() {
        if (rank() != 0) {
            serve();
            throw new IllegalStateException(engine + " rank " + rank() + ": serve() returned"); // it ends the JVM
        }
        synchronized (this) {
            if (!hookInstalled) {
                hookInstalled = true;
                Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "lpf-" + engine + "-shutdown"));
            }
        }
        return rootContext();
    }

    /**
     * Rank 0's root context: a one-process context of this JVM ({@link #selfContext}) whose
     * {@code exec(p)} runs on the first {@code min(p, size)} ranks and whose {@code probe()}
     * reports the whole job (p = freeP = the number of ranks, {@link WholeJobProbe}).
     */
    private Context rootContext() {
        closeCollectedRoots();
        Context self = selfContext();
        ForwardingContext root = new ForwardingContext(self) {
            @Override
            public void exec(int p, Spmd spmd, Args args) {
                checkRootExec(p, spmd, args);
                JobRuntime.this.exec(p, spmd, args);
            }

            @Override
            public Machine probe() { return WholeJobProbe.probe(engine, size(), (n, spmd) -> JobRuntime.this.exec(n, spmd, Args.NONE)); }

            @Override
            public String toString() { return rootName(); }
        };
        if (self instanceof SuperstepContext own) roots.add(new CollectedRoot(root, own, collected));
        return root;
    }

    /**
     * The one-process contexts of root contexts the program no longer holds: each {@link #root}
     * call closes those the GC has found since the last, on the calling thread. A root is never
     * closed by the program, and its context holds native buffers: without this, a program that
     * asks for the root again and again (each {@code Bsplib.run}) kept them all. No thread of its own.
     */
    private final java.lang.ref.ReferenceQueue<Context> collected = new java.lang.ref.ReferenceQueue<>();
    /** Keeps the references themselves reachable until their root is collected. */
    private final java.util.Set<CollectedRoot> roots = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** A root context's one-process context, to close once the root is unreachable. */
    private static final class CollectedRoot extends java.lang.ref.PhantomReference<Context> {
        final SuperstepContext self;

        CollectedRoot(Context root, SuperstepContext self, java.lang.ref.ReferenceQueue<Context> queue) {
            super(root, queue);
            this.self = self;
        }
    }

    private void closeCollectedRoots() {
        for (java.lang.ref.Reference<? extends Context> r; (r = collected.poll()) != null; ) {
            CollectedRoot root = (CollectedRoot) r;
            roots.remove(root);
            try {
                root.self.close();
            } catch (RuntimeException e) {
                // a root left mid-superstep keeps its buffers, as any section with transfers pending does
            }
        }
    }

    /** @return the one-process contexts of root contexts that are not closed yet (for tests) */
    int openRoots() { return roots.size(); }

    /**
     * The argument rules of a root context's {@code exec}, for every root that starts sections
     * of ranks (this one's, and those of engines that run their sections another way).
     *
     * @throws NullPointerException     if {@code spmd} or {@code args} is null
     * @throws IllegalArgumentException if {@code p} is below 1
     */
    public static void checkRootExec(int p, Spmd spmd, Args args) {
        Objects.requireNonNull(spmd, "exec: spmd");
        Objects.requireNonNull(args, "exec: args");
        if (p < 1) throw new IllegalArgumentException("exec(p=" + p + ") at the root: p must be at least 1");
    }

    // ---- rank 0 ----

    /** Runs a root {@code exec}: ships the function to ranks 1 .. n-1 and runs pid 0 here. */
    public final synchronized void exec(int p, Spmd spmd, Args args) {
        if (stopped) throw new IllegalStateException("exec(p=" + p + "): the " + engine + " engine has been shut down");
        refuseIfBroken(p);
        int n = Math.min(p, size());
        inSection = true;
        try {
            byte[] shipment = n > 1 || shipsAlone() ? Shipment.ship(p, spmd, args, shipper()) : null;
            int section = newSection(n);
            byte[] exec = encode(EXEC, n, section, shipment); // once, not once per rank: the engine passes it on
            for (int r = 1; r < n; r++) sendCommand(r, exec);
            FatalException f = runSection(n, section, spmd, args, share(size(), n, 0));
            if (f != null) throw f;
        } finally {
            inSection = false;
        }
    }

    /** Rank 0: sends {@code dest} a command (blocking until it is on its way). */
    protected final void command(int dest, long kind, int n, int section, byte[] payload) {
        sendCommand(dest, encode(kind, n, section, payload));
    }

    /** @return a command's kind: {@link #EXEC}, {@link #SPLIT} or {@link #STOP} */
    protected static long kind(byte[] command) {
        return MemorySegment.ofArray(command).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }

    /** @return a command's n: the ranks of the section it starts ({@link #EXEC}) or splits off ({@link #SPLIT}) */
    protected static int ranks(byte[] command) {
        return (int) MemorySegment.ofArray(command).get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
    }

    /** @return a command: its header, then the payload (engines that send it on do not change it) */
    private static byte[] encode(long kind, int n, int section, byte[] payload) {
        int length = payload == null ? 0 : payload.length;
        byte[] c = new byte[HEADER + length];
        MemorySegment m = MemorySegment.ofArray(c);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, kind);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, n);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, section);
        if (length > 0) System.arraycopy(payload, 0, c, HEADER, length);
        return c;
    }

    /**
     * Rank 0's JVM is ending: release the other ranks, then what the engine holds. If the JVM ends
     * in the middle of a section (System.exit inside an SPMD function), the carrier is in use by
     * that section's thread: then nothing is sent, and the engine's launcher or the others' failure
     * detection ends the job. The same when the engine says it may not ({@link #mayStop}).
     */
    protected final void stop() {
        if (inSection) return;
        if (!mayStop()) return;
        synchronized (this) {
            if (stopped) return;
            stopped = true;
            boolean told = false;
            try {
                byte[] stop = encode(STOP, 0, 0, null);
                for (int r = 1; r < size(); r++) sendCommand(r, stop);
                told = true;
            } catch (RuntimeException e) {
                System.err.println("lpf4j " + engine + ": rank 0 could not tell every rank to stop: " + e);
            }
            try {
                release(told);
            } catch (RuntimeException e) {
                System.err.println("lpf4j " + engine + ": shutdown of rank 0 failed: " + e);
            }
        }
    }

    /**
     * Stops a runtime if it started in this JVM and this JVM is rank 0 (the other ranks exit).
     *
     * @param runtime the engine's instance, or null if it never started
     */
    public static void shutdownAtRoot(JobRuntime runtime) {
        if (runtime != null && runtime.rank() == 0) runtime.stop();
    }

    // ---- ranks 1 .. ----

    /** Ranks 1 ..: runs the sections rank 0 starts until it stops the job, then ends the JVM. */
    private void serve() {
        while (true) {
            byte[] c = receiveCommand();
            long kind = kind(c);
            int n = ranks(c), section = (int) MemorySegment.ofArray(c).get(ValueLayout.JAVA_LONG_UNALIGNED, 16);
            if (kind == STOP) {
                leave();
                System.exit(0);
            } else if (kind == SPLIT) {
                split(n);
            } else if (kind == EXEC) {
                byte[] payload = new byte[c.length - HEADER];
                System.arraycopy(c, HEADER, payload, 0, payload.length);
                Shipment s = Shipment.unship(payload, rank());
                Spmd spmd = s.spmd();
                try {
                    RankZeroSettings.adopt(s.settings(), s.jvm());
                } catch (RuntimeException e) {
                    IllegalStateException why = new IllegalStateException("rank " + rank() + " of the " + engine
                            + " engine cannot take rank 0's parameter settings " + s.settings() + ": " + e.getMessage(), e);
                    spmd = ctx -> { throw why; }; // the section fails at every process, with the reason at pid 0
                }
                runSection(n, section, spmd, s.args(), share(size(), n, rank()));
                afterSection();
            }
        }
    }

    // ---- what the engine supplies ----

    /** @return rank 0's one-process context of this JVM, which the root context forwards to */
    protected abstract Context selfContext();

    /** @return the root context's {@code toString} */
    protected abstract String rootName();

    /** @return how the engine is named in the message of an SPMD function that does not serialize */
    protected String shipper() { return engine; }

    /** @return whether a section of rank 0 alone serializes its function too (so that one that cannot be shipped fails alike) */
    protected boolean shipsAlone() { return false; }

    /**
     * Rank 0, before a section: throws if the engine cannot run another one.
     *
     * @param p the section's {@code exec} argument, for the message
     */
    protected void refuseIfBroken(int p) {}

    /**
     * Rank 0, before the commands of a section of the first {@code n} ranks go out: prepares its
     * carrier (with {@link #SPLIT} commands to every rank if need be).
     *
     * @return the section's number, which every member is told
     */
    protected abstract int newSection(int n);

    /** Ranks 1 ..: a {@link #SPLIT} command for the first {@code n} ranks came. */
    protected void split(int n) {}

    /**
     * Runs this rank's process of a section of the first {@code n} ranks (every rank of it calls this).
     *
     * @param section the number {@link #newSection} gave it
     * @param share   the processors this process has for its nested sections
     * @return the section's failure (with the causes at pid 0), or null
     */
    protected abstract FatalException runSection(int n, int section, Spmd spmd, Args args, int share);

    /** Ranks 1 ..: after a section ended, before the next command (e.g. leave after a failure the job cannot survive). */
    protected void afterSection() {}

    /** Rank 0: sends {@code command} to {@code dest} as one message, and returns when it is on its way (it may be the same array for every rank: not to be changed). */
    protected abstract void sendCommand(int dest, byte[] command);

    /** Ranks 1 ..: the next command of rank 0 (blocking; if rank 0 is gone, the engine ends the JVM). */
    protected abstract byte[] receiveCommand();

    /** @return whether rank 0 may still tell the others to stop (not when a rank can no longer take part) */
    protected boolean mayStop() { return true; }

    /**
     * Rank 0, after the stop commands: frees what the engine holds.
     *
     * @param othersTold whether every other rank got its stop command
     */
    protected abstract void release(boolean othersTold);

    /** Ranks 1 ..: {@link #STOP} came; frees what the engine holds before the JVM exits with status 0. */
    protected abstract void leave();

    /**
     * The one runtime of an engine in a JVM, started on first use.
     *
     * @param <R> the engine's runtime
     */
    public static final class Instance<R extends JobRuntime> {
        private final Supplier<R> start;
        private R runtime;

        /** @param start starts the runtime (joins the job) */
        public Instance(Supplier<R> start) { this.start = start; }

        /** @return the runtime of this JVM, joining the job on first use */
        public synchronized R get() {
            if (runtime == null) runtime = start.get();
            return runtime;
        }

        /** Stops the runtime if it started in this JVM and this JVM is rank 0 (the other ranks exit). */
        public void shutdown() {
            R r;
            synchronized (this) {
                r = runtime;
            }
            shutdownAtRoot(r);
        }
    }
}
