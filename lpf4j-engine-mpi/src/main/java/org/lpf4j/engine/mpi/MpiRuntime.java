package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.superstep.JobRuntime;
import org.lpf4j.superstep.StartupAgreement;

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
 * {@code MPI_COMM_WORLD}), the version agreement, and MPI's part of the job control that
 * {@link JobRuntime} runs: a command is a length and the bytes on the control communicator,
 * {@code SPLIT} makes the communicator of the first n ranks, a section runs over a duplicate of
 * it, {@code STOP} finalizes.
 *
 * <p>A waiting rank polls with {@code MPI_Iprobe} and sleeps between polls (up to 1 ms), so idle
 * ranks leave the cores to the busy ones (tests oversubscribe).
 *
 * <p>With the sync deadline on ({@link MpiParameters#SYNC_TIMEOUT}), starting a section is bounded
 * by it too ({@link #startWait}): the split, the command's send and the section's duplicate poll,
 * and a rank that does not join (stopped between two sections) is named as in a sync.
 */
final class MpiRuntime extends JobRuntime {
    static final int TAG_COMMAND = MpiTags.COMMAND;
    /** MPI's {@code MPI_UNDEFINED}, the same in both ABIs. */
    static final int UNDEFINED = -32766;

    /** The runtime of this JVM, starting MPI on first use. */
    static final Instance<MpiRuntime> INSTANCE = new Instance<>(MpiRuntime::new);

    final Mpi mpi;
    final long control;
    final int rank, size, threadLevel;
    final String libraryVersion;
    /** The settings of every section this runtime starts, resolved when it started; every rank agrees on them. */
    final MpiSettings settings;
    private final boolean initializedHere;
    private final Map<Integer, Long> firstRanks = new HashMap<>();
    /**
     * The deadline of a section's start, over the control communicator (its processes' facts are
     * exchanged once, here, and every section's deadline takes them).
     */
    private final SyncDeadline startWait;

    private MpiRuntime() {
        super("mpi");
        RankGuard.start(); // before MPI_Init: no fork in an MPI process
        mpi = Mpi.load(MpiParameters.LIBRARY.get());
        settings = MpiSettings.resolve(mpi.abi);
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
        startWait = new SyncDeadline(mpi, control, rank, size, settings.syncTimeoutMillis(), settings.polls(), null);
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
    static MpiRuntime get() { return INSTANCE.get(); }

    @Override protected int rank() { return rank; }

    @Override protected int size() { return size; }

    /**
     * A root context of this JVM ({@code Lpf.root()} makes one per call): a one-process section over
     * the one duplicate of {@code MPI_COMM_SELF} that every root shares. A root is never closed, so a
     * communicator of its own would be one more per call for the JVM's life (MPICH runs out of
     * context ids after about 2000: {@code MPI_Comm_dup} fails). Sharing is safe: a section of one
     * process sends no message, and its collectives (blocking: no deadline, no polling for one
     * process) complete within the call.
     */
    @Override
    protected synchronized Context selfContext() {
        if (!rootSelfMade) {
            rootSelf = mpi.dup(mpi.commSelf());
            mpi.setErrorsReturn(rootSelf);
            rootSelfMade = true;
        }
        return new MpiContext(mpi, rootSelf, false, Args.NONE, "mpi/self", 1, CrossJvmObjects.forCurrentThread(), settings, null);
    }

    /** The duplicate of {@code MPI_COMM_SELF} the root contexts share ({@link #selfContext}), once made. */
    private long rootSelf;
    private boolean rootSelfMade;

    @Override
    protected String rootName() { return "MpiRootContext[rank 0 of " + size + "]"; }

    // ---- version agreement ----

    private void agree() {
        String mine = StartupAgreement.text(settings.agreementText(), mpi.abiName() + ": " + libraryVersion);
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
            List<String> texts = new ArrayList<>();
            for (int q = 0; q < size; q++) {
                int n = in.get(ValueLayout.JAVA_INT_UNALIGNED, (long) width * q);
                texts.add(new String(in.asSlice((long) width * q + 4, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8));
            }
            StartupAgreement.check(texts, "MPI job", "MPI libraries");
        }
    }

    // ---- job control: MPI's part ----

    @Override
    protected void refuseIfBroken(int p) {
        String expired = SyncDeadline.expired();
        if (expired != null) {
            throw new FatalException("exec(p=" + p + "): the MPI engine cannot run another section: an earlier one failed"
                    + " because " + expired, null);
        }
    }

    @Override protected String shipper() { return "MPI"; }

    @Override protected boolean shipsAlone() { return true; }

    /**
     * Makes the communicator of ranks 0..n-1 (once per n, with every rank); sections are told apart
     * by their duplicates. {@code MPI_Comm_split} has no nonblocking form: under the deadline, a
     * barrier polled under it comes first.
     */
    @Override
    protected int newSection(int n) {
        if (n != size && !firstRanks.containsKey(n)) {
            for (int r = 1; r < size; r++) command(r, SPLIT, n, 0, null);
            startWait.beginJoin(size, call(n));
            try {
                if (startWait.on()) startWait.barrier();
            } catch (SyncDeadline.Passed e) {
                throw failedStart(n, e);
            }
            long c = mpi.split(control, 0, 0);
            mpi.setErrorsReturn(c);
            firstRanks.put(n, c);
        }
        startWait.beginJoin(n, call(n)); // the clock of the commands' sends and the duplicate
        return 0;
    }

    @Override
    protected void split(int n) {
        startWait.beginJoin(size, call(n));
        try {
            if (startWait.on()) startWait.barrier();
        } catch (SyncDeadline.Passed e) {
            leaveAfterDeadline();
        }
        long c = mpi.split(control, rank < n ? 0 : UNDEFINED, rank);
        if (rank < n) {
            mpi.setErrorsReturn(c);
            firstRanks.put(n, c);
        }
    }

    @Override
    protected FatalException runSection(int n, int section, Spmd spmd, Args args, int share) {
        long base = n == size ? control : firstRanks.get(n);
        if (unpacking != null) {
            SyncDeadline.Passed failed = unpacking.finish();
            unpacking = null;
            if (failed != null) return failedStart(n, failed);
        }
        if (rank != 0) startWait.beginJoin(n, call(n)); // rank 0's clock started in newSection
        long comm;
        try {
            comm = startWait.dup(base);
        } catch (SyncDeadline.Passed e) {
            return failedStart(n, e);
        }
        return Sections.run(mpi, comm, spmd, args, "mpi", call(n), share, settings, startWait);
    }

    private static String call(int n) { return "exec(p=" + n + ")"; }

    private static FatalException failedStart(int n, SyncDeadline.Passed e) {
        return new FatalException(call(n) + " failed: " + e.getMessage(), null);
    }

    /**
     * A length, then the bytes, on the control communicator. A section's command (the shipped
     * function, of any size) is sent under the deadline of the section's start when it is on.
     */
    @Override
    protected void sendCommand(int dest, byte[] command) {
        boolean section = kind(command) == EXEC;
        Arena a = Arena.ofConfined();
        boolean mpiMayRead = false;
        try {
            MemorySegment len = a.allocate(8);
            len.set(ValueLayout.JAVA_LONG, 0, command.length);
            sendCommandPart(len, dest, section);
            sendCommandPart(a.allocateFrom(ValueLayout.JAVA_BYTE, command), dest, section);
        } catch (SyncDeadline.Passed e) {
            mpiMayRead = true; // the send did not complete: its buffers stay allocated
            throw failedStart(ranks(command), e);
        } finally {
            if (!mpiMayRead) a.close();
        }
    }

    /** A section's command goes under the start's deadline ({@link SyncDeadline#sendBytes}), the others blocking. */
    private void sendCommandPart(MemorySegment part, int dest, boolean section) {
        if (section) startWait.sendBytes(part, (int) part.byteSize(), dest, TAG_COMMAND);
        else mpi.sendBytes(part, (int) part.byteSize(), dest, TAG_COMMAND, control);
    }

    @Override
    protected byte[] receiveCommand() {
        long backoff = 1_000;
        while (!mpi.iprobe(0, TAG_COMMAND, control)) {
            try {
                startWait.answer(); // a rank joining a section may ask whether this one is alive
            } catch (SyncDeadline.Passed e) {
                leaveAfterDeadline();
            }
            LockSupport.parkNanos(backoff);
            backoff = Math.min(1_000_000, backoff * 2);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment len = a.allocate(8);
            mpi.recvBytes(len, 8, 0, TAG_COMMAND, control);
            int n = Math.toIntExact(len.get(ValueLayout.JAVA_LONG, 0));
            MemorySegment buf = a.allocate(n);
            mpi.recvBytes(buf, n, 0, TAG_COMMAND, control);
            byte[] command = buf.toArray(ValueLayout.JAVA_BYTE);
            if (kind(command) == EXEC) unpacking = Answerer.startIfUseful(startWait, threadLevel);
            return command;
        }
    }

    /** Answers the start's census while the shipped function is unpacked ({@link Answerer}), or null. */
    private Answerer unpacking;

    /**
     * While a rank unpacks a section's shipped function (deserialising it, adopting rank 0's
     * settings: no MPI call), rank 0 may take the start's census: a thread of its own answers for
     * it, so that a large function takes as long as it needs, as a long compute phase does. Only
     * with the deadline on, and with MPI at {@code MPI_THREAD_SERIALIZED} (the two threads never
     * call MPI at once: {@link #finish} joins it before the next call).
     */
    private static final class Answerer implements Runnable {
        private final SyncDeadline deadline;
        private final Thread thread;
        private volatile boolean stop;
        private SyncDeadline.Passed failed;

        private Answerer(SyncDeadline deadline) {
            this.deadline = deadline;
            this.thread = Thread.ofPlatform().daemon().name("lpf4j-mpi-answerer").unstarted(this);
        }

        static Answerer startIfUseful(SyncDeadline deadline, int threadLevel) {
            if (!deadline.on() || threadLevel < Mpi.THREAD_SERIALIZED) return null;
            Answerer a = new Answerer(deadline);
            a.thread.start();
            return a;
        }

        @Override
        public void run() {
            while (!stop) {
                try {
                    deadline.answer();
                } catch (SyncDeadline.Passed e) {
                    failed = e;
                    return;
                }
                LockSupport.parkNanos(1_000_000L);
            }
        }

        /** @return the failure notice it received, or null; after this, it calls MPI no more */
        SyncDeadline.Passed finish() {
            stop = true;
            boolean interrupted = false;
            while (true) {
                try {
                    thread.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
            return failed;
        }
    }

    /**
     * Not after a section failed by its sync deadline ({@link SyncDeadline}): a rank that did not
     * arrive would never take part in the finalisation; rank 0 exits without finalizing, and the
     * launcher ends the job.
     */
    @Override
    protected boolean mayStop() { return SyncDeadline.expired() == null; }

    @Override
    protected void release(boolean othersTold) {
        if (othersTold && initializedHere && !mpi.finalized()) mpi.finish();
    }

    @Override
    protected void leave() {
        if (initializedHere) mpi.finish();
    }

    @Override
    protected void afterSection() {
        if (SyncDeadline.expired() != null) leaveAfterDeadline();
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
}
