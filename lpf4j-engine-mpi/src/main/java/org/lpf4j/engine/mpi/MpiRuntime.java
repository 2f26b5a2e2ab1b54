package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;
import org.lpf4j.spi.Agreement;
import org.lpf4j.spi.Components;

import org.lpf4j.superstep.Shipment;


import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The MPI job as this JVM sees it: MPI initialised once, a control communicator (a duplicate of
 * {@code MPI_COMM_WORLD}), the version agreement, and the two roles. Rank 0 runs {@code main}
 * and sends each {@code exec} to the ranks it needs; every other rank waits for commands
 * ({@link #serve}): {@code SPLIT} (make the communicator of the first n ranks), {@code EXEC}
 * (run a shipped SPMD function), {@code STOP} (rank 0's JVM is ending: finalize and exit).
 *
 * <p>A waiting rank polls with {@code MPI_Iprobe} and sleeps between polls (up to 1 ms), so idle
 * ranks leave the cores to the busy ones (tests oversubscribe).
 */
final class MpiRuntime extends org.lpf4j.superstep.JobRuntime {
    static final int TAG_COMMAND = MpiTags.COMMAND;
    static final long EXEC = 1, SPLIT = 2, STOP = 3;
    /** MPI's {@code MPI_UNDEFINED}, the same in both ABIs. */
    static final int UNDEFINED = -32766;

    private static MpiRuntime instance;

    final Mpi mpi;
    final long control;
    final int rank, size, threadLevel;
    final String libraryVersion;
    /** The settings of every section this runtime starts, resolved when it started; every rank agrees on them. */
    final MpiSettings settings = MpiSettings.resolve();
    private final boolean initializedHere;
    private final Map<Integer, Long> firstRanks = new HashMap<>();
    private boolean stopped;

    private MpiRuntime() {
        super("mpi");
        RankGuard.start(); // before MPI_Init: no fork in an MPI process
        mpi = Mpi.load(MpiEngine.LIBRARY.get());
        if (mpi.initialized()) {
            initializedHere = false;
            threadLevel = mpi.queryThread();
        } else {
            initializedHere = true;
            threadLevel = mpi.initThread(Mpi.THREAD_SERIALIZED);
        }
        control = mpi.dup(mpi.commWorld());
        mpi.setErrorsReturn(control);
        rank = mpi.rank(control);
        size = mpi.size(control);
        refuseIfSingletonOfALaunchedJob(size, mpi);
        libraryVersion = mpi.libraryVersion().lines().findFirst().orElse("").strip();
        agree();
    }

    /**
     * A launcher of another MPI (Open MPI's mpirun starting JVMs that load MPICH, say) starts JVMs
     * that each initialise MPI as a job of one process: the program would run once per rank, alone.
     *
     * @throws IllegalStateException naming the launcher's variable, the library and what to do
     */
    private static void refuseIfSingletonOfALaunchedJob(int size, Mpi mpi) {
        MpiEngineProvider.Announcement a = MpiEngineProvider.announcement();
        if (a == null || a.size() <= 1 || size != 1) return;
        throw new IllegalStateException("lpf4j mpi: the launcher announced " + a.size() + " processes (" + a.variable() + "="
                + a.size() + ", set by " + a.launcher() + ") but MPI_Comm_size(MPI_COMM_WORLD) of " + mpi.libraryName() + " ("
                + mpi.abiName() + ") says 1: the launcher does not belong to that library, so every rank would run the program"
                + " alone. " + (a.variable().startsWith("SLURM_") ? "Under srun, give the MPI plugin the library needs:"
                + " srun --mpi=pmix for Open MPI, srun --mpi=pmi2 for MPICH (srun --mpi=list shows what this Slurm has;"
                + " without --mpi, slurm.conf's MpiDefault applies)" : "Start the job with the launcher of the library"
                + " (Open MPI's mpirun for libmpi.so.40, MPICH's mpiexec.mpich for libmpich.so.12), or set"
                + " lpf.engine.mpi.library to the launcher's library") + "; lpf run --engine mpi -p N chooses the launcher"
                + " that belongs to the library (srun inside a Slurm allocation)");
    }

    /** @return the runtime of this JVM, starting MPI on first use */
    static synchronized MpiRuntime get() {
        if (instance == null) instance = new MpiRuntime();
        return instance;
    }

    /** Stops the runtime if it started in this JVM (rank 0: the other ranks exit). */
    static void shutdown() {
        MpiRuntime r;
        synchronized (MpiRuntime.class) {
            r = instance;
        }
        shutdownAtRoot(r);
    }

    @Override protected int rank() { return rank; }

    @Override
    protected Context rootContext() {
        return new MpiRootContext(this);
    }


    // ---- version agreement ----

    private void agree() {
        // Choices, then the settings every rank must share (they decide which collectives a sync
        // calls), then the library (its version text may span lines).
        String mine = Agreement.encode(Agreement.choices(Components.installed())) + "\n"
                + settings.agreementText() + "\n"
                + mpi.abiName() + ": " + libraryVersion;
        byte[] own = mine.getBytes(StandardCharsets.UTF_8);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment len = a.allocate(16);
            len.set(ValueLayout.JAVA_LONG, 0, own.length);
            mpi.allreduceLongs(len, len.asSlice(8), 1, mpi.opMax(), control);
            int width = Math.toIntExact(len.get(ValueLayout.JAVA_LONG, 8)) + 4;
            MemorySegment out = a.allocate((long) width * size), in = a.allocate((long) width * size);
            for (int q = 0; q < size; q++) {
                out.set(ValueLayout.JAVA_INT_UNALIGNED, (long) width * q, own.length);
                MemorySegment.copy(MemorySegment.ofArray(own), 0, out, (long) width * q + 4, own.length);
            }
            mpi.alltoallBytes(out, in, width, control);
            List<List<Agreement.Choice>> choices = new ArrayList<>();
            List<String> libraries = new ArrayList<>(), settings = new ArrayList<>();
            for (int q = 0; q < size; q++) {
                int n = in.get(ValueLayout.JAVA_INT_UNALIGNED, (long) width * q);
                String text = new String(in.asSlice((long) width * q + 4, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                int cut = text.indexOf('\n'), cut2 = text.indexOf('\n', cut + 1);
                choices.add(Agreement.decode(text.substring(0, cut)));
                settings.add(text.substring(cut + 1, cut2));
                libraries.add(text.substring(cut2 + 1));
            }
            Agreement.check(choices);
            refuseIfTheyDiffer(libraries, "the processes of this MPI job loaded different MPI libraries:");
            refuseIfTheyDiffer(settings, "the processes of this MPI job have different engine settings (give every rank the same):");
        }
    }

    /** Throws, listing every pid's value after {@code what}, unless all pids have the same value. */
    private static void refuseIfTheyDiffer(List<String> byPid, String what) {
        if (byPid.stream().distinct().count() <= 1) return;
        StringBuilder b = new StringBuilder(what);
        for (int q = 0; q < byPid.size(); q++) b.append(" [pid ").append(q).append(": ").append(byPid.get(q)).append(']');
        throw new IllegalStateException(b.toString());
    }

    // ---- rank 0 ----

    /** Set while rank 0 runs a section: a shutdown then must not wait for it (see {@link #stop}). */
    private volatile boolean inSection;

    /** Runs a root {@code exec}: ships the function to ranks 1..n-1 and runs pid 0 here. */
    synchronized void exec(int p, Spmd spmd, Args args) {
        if (stopped) throw new IllegalStateException("exec(p=" + p + "): the MPI engine has been shut down");
        String expired = SyncDeadline.expired();
        if (expired != null) {
            throw new FatalException("exec(p=" + p + "): the MPI engine cannot run another section: an earlier one failed"
                    + " because " + expired, null);
        }
        inSection = true;
        try {
            run(p, spmd, args);
        } finally {
            inSection = false;
        }
    }

    private void run(int p, Spmd spmd, Args args) {
        byte[] shipment = Shipment.ship(p, spmd, args, "MPI");
        int n = Math.min(p, size);
        long comm = firstRanks(n);
        for (int r = 1; r < n; r++) command(r, EXEC, n, shipment);
        FatalException f = Sections.run(mpi, mpi.dup(comm), spmd, args, "mpi", "exec(p=" + n + ")", Sections.share(size, n, 0), settings);
        if (f != null) throw f;
    }

    /** @return the communicator of ranks 0..n-1 (made once per n, with every rank) */
    private long firstRanks(int n) {
        if (n == size) return control;
        Long comm = firstRanks.get(n);
        if (comm != null) return comm;
        for (int r = 1; r < size; r++) command(r, SPLIT, n, new byte[0]);
        long c = mpi.split(control, 0, 0);
        mpi.setErrorsReturn(c);
        firstRanks.put(n, c);
        return c;
    }

    private void command(int dest, long kind, int n, byte[] payload) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(24);
            h.setAtIndex(ValueLayout.JAVA_LONG, 0, kind);
            h.setAtIndex(ValueLayout.JAVA_LONG, 1, n);
            h.setAtIndex(ValueLayout.JAVA_LONG, 2, payload.length);
            mpi.sendBytes(h, 24, dest, TAG_COMMAND, control);
            if (payload.length > 0) mpi.sendBytes(a.allocateFrom(ValueLayout.JAVA_BYTE, payload), payload.length, dest, TAG_COMMAND, control);
        }
    }

    /**
     * Rank 0's JVM is ending: release the other ranks, then finalize. If the JVM ends in the middle
     * of a section (System.exit inside an SPMD function), MPI is in use by that section's thread:
     * then nothing is sent, rank 0 exits without finalizing, and the launcher ends the job. The same
     * after a section failed by its sync deadline ({@link SyncDeadline}): a rank that did not arrive
     * would never take part in the finalisation.
     */
    @Override
    protected void stop() {
        if (inSection) return;
        if (SyncDeadline.expired() != null) return; // a rank that did not arrive would never take part: the launcher ends the job
        synchronized (this) {
            stopNow();
        }
    }

    private void stopNow() {
        if (stopped) return;
        stopped = true;
        try {
            for (int r = 1; r < size; r++) command(r, STOP, 0, new byte[0]);
            if (initializedHere && !mpi.finalized()) mpi.finish();
        } catch (RuntimeException e) {
            System.err.println("lpf4j mpi: shutdown of rank 0 failed: " + e);
        }
    }

    // ---- ranks 1.. ----

    /** Waits for commands from rank 0 until STOP, then finalizes and exits the JVM. */
    @Override
    protected void serve() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(24);
            while (true) {
                long backoff = 1_000;
                while (!mpi.iprobe(0, TAG_COMMAND, control)) {
                    LockSupport.parkNanos(backoff);
                    backoff = Math.min(1_000_000, backoff * 2);
                }
                mpi.recvBytes(h, 24, 0, TAG_COMMAND, control);
                long kind = h.getAtIndex(ValueLayout.JAVA_LONG, 0);
                int n = (int) h.getAtIndex(ValueLayout.JAVA_LONG, 1);
                int length = (int) h.getAtIndex(ValueLayout.JAVA_LONG, 2);
                if (kind == STOP) {
                    if (initializedHere) mpi.finish();
                    System.exit(0);
                } else if (kind == SPLIT) {
                    long c = mpi.split(control, rank < n ? 0 : UNDEFINED, rank);
                    if (rank < n) {
                        mpi.setErrorsReturn(c);
                        firstRanks.put(n, c);
                    }
                } else if (kind == EXEC) {
                    byte[] payload = new byte[length];
                    try (Arena b = Arena.ofConfined()) {
                        MemorySegment buf = b.allocate(Math.max(1, length));
                        mpi.recvBytes(buf, length, 0, TAG_COMMAND, control);
                        MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, payload, 0, length);
                    }
                    runShipped(n, payload);
                    if (SyncDeadline.expired() != null) leaveAfterDeadline();
                }
            }
        }
    }

    /**
     * The section failed by its sync deadline: this rank arrived, others did not, and MPI can end
     * neither cleanly nor run another section. If pid 0 was among the missing, nobody else reports,
     * so the lowest rank that arrived prints the reason; then every rank that arrived leaves with
     * status 1 without finalising (after a pause, so that pid 0's own report comes out first), and
     * the launcher kills the ranks that did not arrive.
     */
    private void leaveAfterDeadline() {
        if (SyncDeadline.firstMissing() && SyncDeadline.lowestArrived()) {
            System.err.println("lpf4j mpi: rank " + rank + ": the section failed: " + SyncDeadline.expired());
            System.err.flush();
        }
        LockSupport.parkNanos(2_000_000_000L);
        System.exit(1);
    }

    private void runShipped(int n, byte[] payload) {
        Shipment s = Shipment.unship(payload, rank);
        long comm = n == size ? control : firstRanks.get(n);
        Sections.run(mpi, mpi.dup(comm), s.spmd(), s.args(), "mpi", "exec(p=" + n + ")", Sections.share(size, n, rank), settings);
    }
}
