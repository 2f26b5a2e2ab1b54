package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.Capability;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Machine;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.Spmd;
import org.lpf4j.SyncAttr;
import org.lpf4j.engine.mpi.layered.NodeExchange;
import org.lpf4j.engine.mpi.layered.NodeRequests;
import org.lpf4j.spi.kit.ProbeHarness;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.RequestChecks;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;
import org.lpf4j.spi.kit.StagedCapacity;
import org.lpf4j.spi.kit.SuperstepRecorder;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One process of an SPMD section of the MPI engine, over its own communicator (a duplicate, so
 * no message of another section can match). Slots, capacities and argument rules come from the
 * engine kit; {@link #sync} is:
 *
 * <ol>
 *   <li>{@code MPI_Allreduce(BOR)}, the <em>round</em>, of one word: "I queued something", "I am
 *       ending". In a section of at most {@link MpiEngine#PAIRS_IN_ROUND_UP_TO} processes, a
 *       process that queued requests first sends each destination its packed stream, and the
 *       round also carries the p × p bits of who sends to whom (row s: the processes s sends to;
 *       only s writes it, so the OR is the matrix): the streams travel while the allreduce runs,
 *       and a superstep with messages needs no count exchange of its own. If nobody queued
 *       anything and nobody ends, the sync is done: <b>an empty superstep costs one allreduce</b>.</li>
 *   <li>If someone ends (returned or threw), a second allreduce gives every process everyone's
 *       status; the section is over, the others' sync throws {@link FatalException}, and the
 *       exceptions go to pid 0 (so {@code exec} throws them). No process waits for one that left.</li>
 *   <li>Otherwise the {@link Exchange} moves the data.</li>
 * </ol>
 *
 * <p>The same sync serves an engine layered on this one ({@link NodeExchange}: the hybrid
 * engine's node-level section), moving the requests of every local process of the rank.
 *
 * <p>Not thread-safe (a context belongs to its process's thread, as in every engine).
 */
final class MpiContext implements Context, NodeExchange {
    /** Bits of the word every process contributes to a round. */
    static final long HAS_MESSAGES = 1, ENDING = 2, IN_SYNC = 4, IN_REHOOK = 8;
    /** A process's status in the end round. */
    static final long SYNCING = 0, RETURNED = 1, THREW = 2, REHOOKING = 3;
    static final int TAG_CAUSE = 21;

    private final Mpi mpi;
    private final long comm;
    private final int pid, nprocs;
    private final Args args;
    private final String engineKey;
    private final int freeP;
    private final SlotRegister register = new SlotRegister();
    private final StagedCapacity queueCapacity = new StagedCapacity("resizeMessageQueue");
    private final RequestList queue = new RequestList();
    private final Exchange exchange;
    private final CombinerTable combiners;
    private final CrossJvmObjects objects;
    private final MpiSettings settings;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment statuses;
    /** The round's longs ({@link #roundWords}), sent, then received. */
    private final NativeBuffer carried = new NativeBuffer();
    /** Whether the section is small enough to send its streams before the round, which carries who sends to whom ({@link MpiEngine#PAIRS_IN_ROUND_UP_TO}). */
    private final boolean pairsFit;
    private long superstep;
    /** JFR superstep events; messages in are not counted here (-1). */
    private final SuperstepRecorder flight = new SuperstepRecorder("mpi");
    private boolean ended;
    /** Whether the section failed because processes did not reach a sync in time: its collectives can never complete. */
    private boolean deadlinePassed;
    /** What this context threw when the deadline passed (not a cause of its own at pid 0). */
    private FatalException deadlineFatal;
    private final SyncDeadline deadline;
    private String failure;
    private final List<Throwable> causes = new ArrayList<>();

    /**
     * @param comm      the section's own communicator (this context frees it at {@link #close})
     * @param engineKey the probe cache key: processes that share it measure together
     * @param freeP     the processors this process has for nested sections (its share of the job)
     * @param objects   how objects from other processes (operators, exceptions) find their classes
     * @param settings  the engine's settings, resolved when the runtime started or the hook was called
     */
    MpiContext(Mpi mpi, long comm, Args args, String engineKey, int freeP, CrossJvmObjects objects, MpiSettings settings) {
        this.mpi = mpi;
        this.freeP = freeP;
        this.comm = comm;
        this.pid = mpi.rank(comm);
        this.nprocs = mpi.size(comm);
        this.args = args;
        this.engineKey = engineKey;
        this.objects = objects;
        this.combiners = new CombinerTable(nprocs, objects);
        this.settings = settings;
        this.deadline = new SyncDeadline(mpi, comm, pid, nprocs, settings.syncTimeoutMillis());
        this.exchange = new Exchange(new MpiTransport(mpi, comm, nprocs, deadline), pid, nprocs, combiners, settings.copy());
        this.pairsFit = settings.pairsInRound(nprocs);
        this.carried.atLeast(roundBytes()); // zeroed, and no allocation at the first sync
        this.statuses = arena.allocate(16L * nprocs);
    }

    /** @return the section's communicator (for the side-by-side benchmark's raw MPI rows) */
    long comm() { return comm; }

    /** @return the binding */
    Mpi mpi() { return mpi; }

    /** Combining puts whose operator is {@link java.io.Serializable}: it is shipped to the destination. */
    @Override
    public boolean supports(Capability capability) { return capability == Capability.COMBINING_PUTS; }

    @Override public int pid() { return pid; }
    @Override public int nprocs() { return nprocs; }
    @Override public Args args() { return args; }
    @Override public long superstep() { return superstep; }

    // ---- registration and capacities: the kit ----

    @Override
    public Memslot registerGlobal(MemorySegment segment) {
        live("registerGlobal");
        checkRegistrable(segment, "registerGlobal");
        return register.registerGlobal(segment, superstep);
    }

    @Override
    public Memslot registerLocal(MemorySegment segment) {
        live("registerLocal");
        checkRegistrable(segment, "registerLocal");
        return register.registerLocal(segment);
    }

    private static final Thread FOREIGN_THREAD = new Thread(() -> { }, "lpf-mpi-access-check");

    /**
     * The kit's rules, and the same refusal of thread-confined segments as on the threads engine:
     * this engine could use them (it copies on the owner's thread), but a program that works here
     * must work on every engine.
     */
    private void checkRegistrable(MemorySegment segment, String call) {
        register.checkRegistrable(segment, call, pid, nprocs);
        if (segment.byteSize() > 0 && !segment.isAccessibleBy(FOREIGN_THREAD)) {
            throw new IllegalArgumentException(call + "(" + segment + ") at pid " + pid
                    + ": the segment is confined to one thread; engines may copy on other threads (the threads engine"
                    + " does), so register heap segments or segments of shared, global or automatic arenas");
        }
    }

    @Override
    public void deregister(Memslot slot) {
        register.deregister(slot, pid, superstep);
    }

    @Override
    public void resizeMemoryRegister(long maxRegs) {
        register.resize(pid, maxRegs);
    }

    @Override
    public void resizeMessageQueue(long maxMsgs) {
        int n = queueCapacity.entries(pid, maxMsgs, 2 * 48, Integer.MAX_VALUE - 16);
        try {
            queue.ensure(n);
        } catch (OutOfMemoryError e) {
            throw queueCapacity.outOfMemory(pid, maxMsgs, e);
        }
        queueCapacity.stage(n);
    }

    // ---- requests ----

    @Override
    public void put(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset, long size, MsgAttr attr) {
        MemorySegment src = RequestChecks.checkPut(register, superstep, pid, nprocs, srcSlot, srcOffset, dstPid, dstSlot,
                dstOffset, size, attr, queue.count(), queueCapacity.current(), true);
        int id = -1;
        if (attr != MsgAttr.DEFAULT) {
            try {
                id = combiners.idOf(attr); // defined now, so that an operator that does not serialize fails this call
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(RequestChecks.putCall(pid, nprocs, srcSlot, srcOffset, dstPid, dstSlot,
                        dstOffset, size) + e.getMessage(), e);
            }
        }
        queue.addPut(src, srcOffset, dstPid, dstSlot.id(), dstOffset, size, attr, id);
    }

    @Override
    public void get(int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset, long size, MsgAttr attr) {
        MemorySegment dst = RequestChecks.checkGet(register, superstep, pid, nprocs, srcPid, srcSlot, srcOffset, dstSlot,
                dstOffset, size, attr, queue.count(), queueCapacity.current());
        queue.addGet(srcPid, srcSlot.id(), srcOffset, dst, dstOffset, size);
    }

    // ---- sync ----

    @Override
    public void sync(SyncAttr attr) {
        long step = superstep;
        boolean recording = flight.begin();
        if (recording) flight.out(queue.count(), SuperstepRecorder.bytes(queue));
        RuntimeException broken;
        try {
            broken = exchangeRound(own);
            if (hadMessages) {
                exchange.applyPuts(0, register);
                exchange.applyReplies(queue, own);
            }
        } finally {
            queue.clear();
        }
        if (recording) flight.commit(pid, nprocs, step);
        if (broken != null) throw broken;
    }

    @Override
    public boolean sync(NodeRequests requests) {
        RuntimeException broken = exchangeRound(requests);
        if (broken != null) throw broken;
        return hadMessages;
    }

    @Override
    public void applyPuts(int local, SlotRegister register) { exchange.applyPuts(local, register); }

    @Override
    public void applyReplies(RequestList gets, NodeRequests requests) { exchange.applyReplies(gets, requests); }

    @Override
    public boolean anyThreadMaySync() { return mpi.queryThread() >= Mpi.THREAD_SERIALIZED; }

    /** This process's own requests, as the exchange sees them: one local process, pid = rank. */
    private final NodeRequests own = new NodeRequests() {
        @Override public int processes() { return 1; }
        @Override public RequestList requests(int local) { return queue; }
        @Override public SlotRegister register(int local) { return register; }
        @Override public int rankOf(int p) { return p; }
        @Override public int localOf(int p) { return 0; }
        @Override public int pidOf(int rank, int local) { return rank; }
    };

    /** Whether the last {@link #exchangeRound} moved requests (someone had queued some). */
    private boolean hadMessages;

    /** @return the longs of a round: the word, and the p × p bits of who sends to whom when the round carries them */
    private int roundWords() { return 1 + (pairsFit ? Exchange.pairWords(nprocs) : 0); }

    private long roundBytes() { return 16L * roundWords(); }

    /** @return where the received round's bits of who sends to whom start in {@link #carried} */
    private long pairsAt() { return 8L * roundWords() + 8; }

    /**
     * After a round that ends the section (someone ended or rehooks): takes in the streams sent
     * before it, so that every process's sends complete. Every process makes such a round and
     * then this call.
     */
    private void drainEarly() {
        if (pairsFit) exchange.drainEarly(carried.atLeast(0), pairsAt());
    }

    /**
     * The sync's round and, if anyone queued requests, the exchange of {@code requests}; sets
     * {@link #hadMessages}. Throws {@link FatalException} when another process ended.
     *
     * @return the first rule an incoming request broke at its destination (after every transfer completed), or null
     */
    private RuntimeException exchangeRound(NodeRequests requests) {
        if (ended) throw fatal("sync");
        hadMessages = false;
        deadline.begin(superstep);
        try {
            int queued = exchange.count(requests);
            long mine = IN_SYNC | (queued > 0 ? HAS_MESSAGES : 0);
            boolean sent = pairsFit && queued > 0;
            if (sent) exchange.sendEarly(requests);
            if (!pairsFit) mine |= degreeBit(exchange.destinations());
            long all = round(mine, sent);
            if ((all & (ENDING | IN_REHOOK)) != 0) {
                drainEarly();
                endRound(SYNCING, null);
                throw fatal("sync");
            }
            if ((all & HAS_MESSAGES) == 0) return null;
            hadMessages = true;
            return pairsFit ? exchange.runEarly(requests, sent, carried.atLeast(0), pairsAt())
                    : exchange.run(requests, settings.sparse(nprocs, maxDegree(all)));
        } catch (SyncDeadline.Passed e) {
            passed(e);
            throw deadlineFatal = fatal("sync");
        } finally {
            register.capacity().applyAtSync();
            queueCapacity.applyAtSync();
            superstep++;
        }
    }

    /** The first bit of the round's word that carries a process's out-degree, as a power of two. */
    private static final int DEGREE_SHIFT = 16;

    /**
     * @return the bit that says "I send to at most 2^b - 1 other processes" ({@code b} the bit
     *         length of {@code destinations}), so that the OR of the round gives every process a
     *         bound on the largest out-degree; 0 for none
     */
    static long degreeBit(int destinations) {
        return destinations == 0 ? 0 : 1L << (DEGREE_SHIFT + 32 - Integer.numberOfLeadingZeros(destinations));
    }

    /** @return a bound on the largest number of other processes any process sends to, from the round's OR */
    static int maxDegree(long all) {
        long bits = all >>> DEGREE_SHIFT;
        return bits == 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, (1L << (63 - Long.numberOfLeadingZeros(bits))) - 1);
    }

    private long round(long mine) { return round(mine, false); }

    /**
     * One round: the OR of every process's word. When the round carries who sends to whom, this
     * process's row of the bits names the processes it sent streams to if {@code sent} (a sync
     * after {@link Exchange#sendEarly}), else none (a rehook or end round, or nothing queued), so
     * every round passes MPI the same count.
     */
    private long round(long mine, boolean sent) {
        int n = roundWords(); // sent at 0, received at 8n
        MemorySegment buf = carried.atLeast(0);
        buf.set(ValueLayout.JAVA_LONG, 0, mine);
        if (pairsFit) exchange.writePairs(buf, 8, sent);
        deadline.allreduceLongs(buf.address(), buf.address() + 8L * n, n, mpi.opBor());
        return buf.get(ValueLayout.JAVA_LONG, 8L * n);
    }

    /**
     * Ends this process's part of the section: tells the others (unless the section already
     * ended) and takes part in the status round.
     *
     * @param threw what the SPMD function threw, or null if it returned
     */
    void finish(Throwable threw) {
        if (deadlinePassed) {
            if (pid == 0 && threw != null && threw != deadlineFatal) causes.add(threw); // a layered engine's own report
            return;
        }
        deadline.begin(superstep);
        try {
            if (!ended) {
                round(ENDING);
                drainEarly();
                endRound(threw == null ? RETURNED : THREW, threw);
                if (failure != null) lateRound(null); // everyone makes it after a failure
            } else if (failure != null) {
                lateRound(threw instanceof FatalException ? null : threw);
            }
        } catch (SyncDeadline.Passed e) {
            passed(e);
            if (pid == 0 && threw != null && !(threw instanceof FatalException)) causes.add(threw);
        }
    }

    /**
     * The section failed by its sync deadline: no collective of it can complete any more, so no
     * end round follows; the reason names the processes that did not arrive.
     */
    private void passed(SyncDeadline.Passed e) {
        ended = true;
        deadlinePassed = true;
        failure = e.getMessage();
    }

    @Override
    public String deadlineFailure() { return deadlinePassed ? failure : null; }

    /**
     * After a failed section every process ends with this round, so that what a process threw
     * after the failure (an assertion about the failure, say) still reaches pid 0 as a cause.
     */
    private void lateRound(Throwable late) {
        MemorySegment out = statuses.asSlice(0, 8L * nprocs), in = statuses.asSlice(8L * nprocs, 8L * nprocs);
        out.fill((byte) 0);
        out.setAtIndex(ValueLayout.JAVA_LONG, pid, late != null ? THREW : RETURNED);
        deadline.allreduceLongs(out.address(), in.address(), nprocs, mpi.opMax());
        long[] status = in.toArray(ValueLayout.JAVA_LONG);
        if (late != null) {
            if (pid == 0) causes.add(late);
            else Causes.send(mpi, late, pid, comm, TAG_CAUSE);
        }
        if (pid == 0) {
            for (int q = 1; q < nprocs; q++) if (status[q] == THREW) causes.add(Causes.receive(mpi, q, comm, TAG_CAUSE, objects));
        }
    }

    /** Everyone learns everyone's status; throwers send their exception to pid 0. */
    private void endRound(long mine, Throwable threw) {
        ended = true;
        MemorySegment out = statuses.asSlice(0, 8L * nprocs), in = statuses.asSlice(8L * nprocs, 8L * nprocs);
        out.fill((byte) 0);
        out.setAtIndex(ValueLayout.JAVA_LONG, pid, mine);
        deadline.allreduceLongs(out.address(), in.address(), nprocs, mpi.opMax());
        long[] status = in.toArray(ValueLayout.JAVA_LONG);
        if (mine == THREW && threw != null) {
            if (pid == 0) causes.add(threw);
            else Causes.send(mpi, threw, pid, comm, TAG_CAUSE);
        }
        if (pid == 0) {
            for (int q = 1; q < nprocs; q++) if (status[q] == THREW) causes.add(Causes.receive(mpi, q, comm, TAG_CAUSE, objects));
        }
        failure = describe(status);
    }

    private static String describe(long[] status) {
        List<String> threw = new ArrayList<>(), syncing = new ArrayList<>(), rehooking = new ArrayList<>();
        for (int q = 0; q < status.length; q++) {
            if (status[q] == THREW) threw.add(Integer.toString(q));
            else if (status[q] == SYNCING) syncing.add(Integer.toString(q));
            else if (status[q] == REHOOKING) rehooking.add(Integer.toString(q));
        }
        if (threw.isEmpty() && syncing.isEmpty() && rehooking.isEmpty()) return null;
        if (!rehooking.isEmpty()) {
            return "pid " + String.join(", ", rehooking) + " called rehook while "
                    + (syncing.isEmpty() ? "" : "pid " + String.join(", ", syncing) + " called sync")
                    + (!syncing.isEmpty() && !threw.isEmpty() ? " and " : "")
                    + (threw.isEmpty() ? "" : "pid " + String.join(", ", threw) + " threw")
                    + (syncing.isEmpty() && threw.isEmpty() ? "the others had returned" : "");
        }
        StringBuilder b = new StringBuilder();
        if (!threw.isEmpty()) b.append("pid ").append(String.join(", ", threw)).append(" threw");
        if (!syncing.isEmpty()) {
            if (!b.isEmpty()) b.append("; ");
            b.append("pid ").append(String.join(", ", syncing)).append(" still called sync while ")
                    .append(threw.isEmpty() ? "the others had returned (a process returned early)" : "the others had ended");
        }
        return b.toString();
    }

    private FatalException fatal(String call) {
        Throwable first = causes.isEmpty() ? null : causes.get(0);
        FatalException e = new FatalException(call + " at pid " + pid + " of " + nprocs + ": the section failed: "
                + failure + (first != null ? ": " + first : ""), first);
        for (int i = 1; i < causes.size(); i++) e.addSuppressed(causes.get(i));
        return e;
    }

    /**
     * @param call e.g. {@code "exec(p=4)"}
     * @return the failure of the ended section (with the causes on pid 0), or null if it ended well
     */
    FatalException outcome(String call) {
        if (failure == null) return null;
        Throwable first = causes.isEmpty() ? null : causes.get(0);
        FatalException e = new FatalException(call + " failed: " + failure + (first != null ? ": " + first : ""), first);
        for (int i = 1; i < causes.size(); i++) e.addSuppressed(causes.get(i));
        return e;
    }

    private void live(String call) {
        if (ended) throw fatal(call);
    }

    // ---- sections ----

    /** Collective: every process of the section must call it (the measurement is a section over a duplicate of the communicator). */
    @Override
    public Machine probe() {
        ProbeHarness.Fit fit = ProbeHarness.fitFor(engineKey, nprocs,
                () -> Sections.measure(mpi, comm, engineKey, settings));
        Machine m = new Machine(nprocs, freeP, fit.sizes(), fit.g(), fit.l());
        for (String w : fit.warnings()) m = m.withWarning(w); // lpf probe prints them
        return m;
    }

    @Override
    public void exec(int p, Spmd spmd, Args args) {
        Objects.requireNonNull(spmd, "exec: spmd");
        Objects.requireNonNull(args, "exec: args");
        if (p < 1) throw new IllegalArgumentException("exec(p=" + p + ") at pid " + pid + ": p must be at least 1");
        live("exec");
        Sections.nested(mpi, Math.min(p, freeP), spmd, args, engineKey, settings);
    }

    @Override
    public void rehook(Spmd spmd, Args args) {
        Objects.requireNonNull(spmd, "rehook: spmd");
        Objects.requireNonNull(args, "rehook: args");
        live("rehook");
        // A round of the parent first: everyone must be entering rehook (else the section fails).
        deadline.begin(superstep);
        try {
            long all = round(IN_REHOOK);
            drainEarly();
            if ((all & (ENDING | IN_SYNC)) != 0) {
                endRound(REHOOKING, null);
                throw fatal("rehook");
            }
        } catch (SyncDeadline.Passed e) {
            passed(e);
            throw deadlineFatal = fatal("rehook");
        }
        FatalException f = Sections.run(mpi, mpi.dup(comm), spmd, args, engineKey, "rehook", freeP, settings);
        if (f != null) throw f;
    }

    /**
     * Frees the communicator and the buffers; after a passed sync deadline nothing (MPI may still
     * write into them: the job is ending).
     */
    void close() {
        if (deadlinePassed) return;
        int pending = exchange.pendingTransfers();
        if (pending > 0) { // MPI may still write into the buffers: they stay allocated
            throw new IllegalStateException("the MPI section of pid " + pid + " of " + nprocs + " ended with " + pending
                    + " transfers of superstep " + superstep + " pending");
        }
        deadline.close();
        exchange.close();
        carried.close();
        arena.close();
        mpi.free(comm);
    }

    @Override
    public String toString() {
        return "MpiContext[pid " + pid + " of " + nprocs + ", superstep " + superstep + "]";
    }
}
