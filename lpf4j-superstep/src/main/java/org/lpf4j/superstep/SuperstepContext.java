package org.lpf4j.superstep;

import org.lpf4j.Args;
import org.lpf4j.Capability;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Machine;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.Spmd;
import org.lpf4j.SyncAttr;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.ProbeHarness;
import org.lpf4j.spi.kit.RequestChecks;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;
import org.lpf4j.spi.kit.StagedCapacity;
import org.lpf4j.spi.kit.SuperstepRecorder;
import org.lpf4j.spi.kit.WireCounts;

import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

/**
 * One process of an SPMD section of a multi-JVM engine: the superstep protocol, written once over
 * a {@link Transport}. Slots, capacities and argument rules come from the engine kit;
 * {@link #sync} is:
 *
 * <ol>
 *   <li>the <em>round</em>, an allreduce (OR) of one word: "I queued something", "I am ending". In
 *       a section of at most {@link ProtocolSettings#pairsInRoundUpTo} ranks, a process that
 *       queued requests first sends each destination its packed stream, and the round also
 *       carries the p × p bits of who sends to whom (row s: the processes s sends to; only s
 *       writes it, so the OR is the matrix): the streams travel while the round runs, and a
 *       superstep with messages needs no count exchange of its own. If nobody queued anything and
 *       nobody ends, the sync is done: <b>an empty superstep costs one allreduce</b>.</li>
 *   <li>If someone ends (returned or threw), a second allreduce (MAX) gives every process
 *       everyone's status; the section is over, the others' sync throws {@link FatalException},
 *       and the exceptions go to pid 0 as small messages (so {@code exec} throws them). No process
 *       waits for one that left.</li>
 *   <li>Otherwise the {@link Exchange} moves the data.</li>
 * </ol>
 *
 * <p>The same sync serves an engine layered on this one ({@link NodeExchange}: the hybrid
 * engine's node-level section), moving the requests of every local process of the rank.
 *
 * <p>The section probe and nested {@code exec} are written here too. An engine supplies the
 * transport and what is its own: a fresh section over the same processes (for {@link #rehook}
 * and {@link #probe}: {@link #runChild}), a section of one process ({@link #runAlone}), where the
 * probe's figures are kept ({@link #probeFit}) and what {@link #close} releases beyond the
 * protocol's buffers ({@link #closeEngine}). Not thread-safe (a context belongs to its
 * process's thread, as in every engine).
 *
 * <p>The round itself is {@link Round}, the end of the section (status rounds, failure, causes)
 * {@link SectionEnd}, the data movement {@link Exchange}: this class holds the process's
 * registrations and queue and runs the steps of its calls.
 */
public abstract class SuperstepContext implements Context, NodeExchange, WireCounts.Source {
    private final Transport transport;
    private final int pid, nprocs;
    private final Args args;
    private final SlotRegister register = new SlotRegister();
    private final StagedCapacity queueCapacity = new StagedCapacity("resizeMessageQueue");
    private final RequestList queue = new RequestList();
    private final Exchange exchange;
    private final CombinerTable combiners;
    private final ProtocolSettings settings;
    /** The sync's round, and the end of the section. */
    private final Round round;
    private final SectionEnd end;
    private long superstep;
    /** JFR superstep events; messages in are not counted here (-1). */
    private final SuperstepRecorder flight;
    /** What this rank sent: the transport's collectives, the exchange's messages; and the counts at the start of a recorded sync. */
    private final WireCounts counts;
    private final long[] countsBefore = new long[WireCounts.COUNTERS];

    /**
     * @param transport the section's transport (this context closes it at {@link #close})
     * @param args      the section's arguments at this process
     * @param objects   how objects from other processes (operators, exceptions) find their classes
     * @param settings  the protocol's settings, resolved by the engine
     * @param engine    the engine's name, for Flight Recorder events
     */
    protected SuperstepContext(Transport transport, Args args, CrossJvmObjects objects, ProtocolSettings settings,
                               String engine) {
        this.transport = transport;
        this.pid = transport.rank();
        this.nprocs = transport.ranks();
        this.args = args;
        this.combiners = new CombinerTable(nprocs, objects);
        this.settings = settings;
        this.flight = new SuperstepRecorder(engine);
        this.counts = transport.counts();
        this.exchange = new Exchange(transport, pid, nprocs, combiners, settings.copy(), counts);
        this.round = new Round(transport, counts, exchange, nprocs, settings.pairsInRound(nprocs));
        this.end = new SectionEnd(transport, counts, objects, round, pid, nprocs);
    }

    /** Combining puts whose operator is {@link java.io.Serializable}: it is shipped to the destination. */
    @Override
    public boolean supports(Capability capability) { return capability == Capability.COMBINING_PUTS; }

    @Override public int pid() { return pid; }
    @Override public int nprocs() { return nprocs; }
    @Override public Args args() { return args; }
    @Override public long superstep() { return superstep; }

    /** What this process sent to the others since the section started (its transport's and the exchange's counts). */
    @Override public WireCounts wireCounts() { return counts; }

    /** @return the combining attributes' table of this process's rank (for tests of what it keeps) */
    CombinerTable combiners() { return combiners; }

    // ---- registration and capacities: the kit ----

    @Override
    public Memslot registerGlobal(MemorySegment segment) {
        end.live("registerGlobal");
        // The same refusal of thread-confined segments as on the threads engine: a program that works here must work there.
        return register.registerGlobalShared(segment, superstep, pid, nprocs);
    }

    @Override
    public Memslot registerLocal(MemorySegment segment) {
        end.live("registerLocal");
        return register.registerLocalShared(segment, pid, nprocs);
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

    /** {@code lpf.capacity=grow}: a full queue grows now (twice), the only allocation of a put or get, and only then. */
    private void growQueue(int used) {
        int staged = queueCapacity.pending(), n = queueCapacity.grownFor(used, Integer.MAX_VALUE - 16);
        try {
            queue.ensure(n);
        } catch (OutOfMemoryError e) {
            throw queueCapacity.outOfMemory(pid, n, e);
        }
        queueCapacity.grow(n, staged);
    }

    // ---- requests ----

    @Override
    public void put(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset, long size, MsgAttr attr) {
        if (queue.count() >= queueCapacity.current() && queueCapacity.grows()) growQueue(queue.count());
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
        if (queue.count() >= queueCapacity.current() && queueCapacity.grows()) growQueue(queue.count());
        MemorySegment dst = RequestChecks.checkGet(register, superstep, pid, nprocs, srcPid, srcSlot, srcOffset, dstSlot,
                dstOffset, size, attr, queue.count(), queueCapacity.current());
        queue.addGet(srcPid, srcSlot.id(), srcOffset, dst, dstOffset, size);
    }

    // ---- sync ----

    @Override
    public void sync(SyncAttr attr) {
        long step = superstep;
        boolean recording = flight.begin();
        if (recording) {
            flight.out(queue.count(), SuperstepRecorder.bytes(queue));
            counts.read(countsBefore);
        }
        RuntimeException broken;
        try {
            broken = exchangeRound(own);
            if (hadMessages) {
                RuntimeException unapplied = null;
                try {
                    exchange.applyPuts(0, register);
                } catch (IllegalStateException e) { // a put to itself whose source was freed during the sync: the rest is written
                    unapplied = e;
                }
                exchange.applyReplies(queue, own);
                if (broken == null) broken = unapplied;
            }
        } finally {
            queue.clear();
        }
        if (recording) {
            flight.wire(countsBefore, counts);
            flight.commit(pid, nprocs, step);
        }
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
    public boolean anyThreadMaySync() { return transport.anyThreadMayCall(); }

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

    /**
     * The sync's round and, if anyone queued requests, the exchange of {@code requests}; sets
     * {@link #hadMessages}. Throws {@link FatalException} when another process ended.
     *
     * @return the first rule an incoming request broke at its destination (after every transfer completed), or null
     */
    private RuntimeException exchangeRound(NodeRequests requests) {
        if (end.ended()) throw end.fatal("sync");
        hadMessages = false;
        transport.beginRound(superstep);
        boolean midway = false;
        try {
            int queued = exchange.count(requests);
            // From here on the others may wait for what this process sends. An error before (an operator
            // that does not serialize) ends the section by the end round, where the others wait for it.
            midway = true;
            long mine = Round.IN_SYNC | (queued > 0 ? Round.HAS_MESSAGES : 0);
            boolean pairsFit = round.pairsFit(), sent = pairsFit && queued > 0;
            if (sent) exchange.sendEarly(requests);
            if (!pairsFit) mine |= Round.degreeBit(exchange.destinations());
            long all = round.round(mine, sent);
            if ((all & (Round.ENDING | Round.IN_REHOOK)) != 0) {
                round.drainEarly();
                end.endRound(SectionEnd.SYNCING, null);
                throw end.fatal("sync");
            }
            if ((all & Round.HAS_MESSAGES) == 0) return null;
            hadMessages = true;
            return pairsFit ? round.runEarly(requests, sent)
                    : exchange.run(requests, settings.sparse(nprocs, Round.maxDegree(all)));
        } catch (Transport.Stopped e) {
            end.passed(e);
            throw end.deadlineFatal("sync");
        } catch (RuntimeException | Error e) {
            if (!midway || e instanceof FatalException) throw e; // before sending, or the section had ended (said by the round)
            // An error of this process midway (a buffer it could not allocate): the others wait for
            // transfers and rounds that will not come, so the transport ends their waits, as a death would.
            String why = "pid " + pid + " left superstep " + superstep + " midway: " + e;
            try {
                transport.leave(why);
            } catch (RuntimeException | Error second) {
                e.addSuppressed(second);
            }
            end.passed(new Transport.Stopped(why));
            throw e;
        } finally {
            register.capacity().applyAtSync();
            queueCapacity.applyAtSync();
            superstep++;
        }
    }

    /**
     * Ends this process's part of the section: tells the others (unless the section already
     * ended) and takes part in the status round.
     *
     * @param threw what the SPMD function threw, or null if it returned
     */
    public void finish(Throwable threw) { end.finish(threw, superstep); }

    @Override
    public String deadlineFailure() { return end.deadlineFailure(); }

    /**
     * @param call e.g. {@code "exec(p=4)"}
     * @return the failure of the ended section (with the causes on pid 0), or null if it ended well
     */
    public FatalException outcome(String call) { return end.outcome(call); }

    // ---- sections ----

    /**
     * Collective: a round of this section in which every process enters rehook (else the section
     * fails), then the engine's new section over the same processes ({@link #runRehook}).
     */
    @Override
    public void rehook(Spmd spmd, Args args) {
        java.util.Objects.requireNonNull(spmd, "rehook: spmd");
        java.util.Objects.requireNonNull(args, "rehook: args");
        end.live("rehook");
        transport.beginRound(superstep);
        try {
            long all = round.round(Round.IN_REHOOK);
            round.drainEarly();
            if ((all & (Round.ENDING | Round.IN_SYNC)) != 0) {
                end.endRound(SectionEnd.REHOOKING, null);
                throw end.fatal("rehook");
            }
        } catch (Transport.Stopped e) {
            end.passed(e);
            throw end.deadlineFatal("rehook");
        }
        FatalException f = child(spmd, args, "rehook");
        if (f != null) throw f;
    }

    /**
     * Collective: the figures of sections of this many processes of this placement, measured once
     * in a fresh section over the same processes ({@link #runChild}; pid 0's disk cache may answer
     * instead, {@link ProbeHarness#cachedOrMeasured}) and kept by the engine ({@link #probeFit}),
     * as this process's machine with its share of processors ({@link #freeP}).
     */
    @Override
    public Machine probe() {
        end.live("probe");
        ProbeHarness.Fit fit = probeFit(() -> {
            ProbeHarness.Fit[] result = new ProbeHarness.Fit[1];
            FatalException f = child(ctx -> result[0] = ProbeHarness.cachedOrMeasured(ctx, probeKey(), probeNanos()), Args.NONE,
                    "probe");
            if (f != null) throw f;
            return result[0];
        });
        Machine m = new Machine(nprocs, freeP(), fit.sizes(), fit.g(), fit.l());
        for (String w : fit.warnings()) m = m.withWarning(w); // lpf probe prints them
        return m;
    }

    /**
     * A nested section runs in this JVM on this process's share of the job ({@link #freeP}): on
     * the threads engine when it is installed and more than one process fits, else as a section of
     * this process alone ({@link #runAlone}).
     */
    @Override
    public void exec(int p, Spmd spmd, Args args) {
        java.util.Objects.requireNonNull(spmd, "exec: spmd");
        java.util.Objects.requireNonNull(args, "exec: args");
        if (p < 1) throw new IllegalArgumentException("exec(p=" + p + ") at pid " + pid + ": p must be at least 1");
        end.live("exec");
        int n = Math.min(p, freeP());
        if (n > 1) {
            Context threads = null;
            try {
                threads = Lpf.root("threads");
            } catch (RuntimeException e) {
                // not installed or cannot run: one process below
            }
            if (threads != null) {
                threads.exec(n, spmd, args);
                return;
            }
        }
        FatalException f = runAlone(spmd, args, "exec(p=" + p + ")");
        if (f != null) throw f;
    }

    /** {@link #runChild}, where a transport that bounds the making of the section ends this one as a sync's deadline does. */
    private FatalException child(Spmd spmd, Args args, String call) {
        try {
            return runChild(spmd, args, call);
        } catch (Transport.Stopped e) {
            end.passed(e);
            throw end.deadlineFatal(call);
        }
    }

    /**
     * The engine's part of {@link #rehook} and {@link #probe}: runs {@code spmd} as a fresh section
     * over this section's processes (collective; after every process agreed in a round, for rehook).
     *
     * @param call {@code "rehook"} or {@code "probe"}, for the section's messages
     * @return the failure of that section, or null if it ended well
     * @throws Transport.Stopped if the transport bounds the wait for the others to make it, and they did not come
     */
    protected abstract FatalException runChild(Spmd spmd, Args args, String call);

    /**
     * The engine's part of a nested {@link #exec} that the threads engine does not run: a section
     * of this process alone, in this JVM.
     *
     * @return the failure of that section, or null if it ended well
     */
    protected abstract FatalException runAlone(Spmd spmd, Args args, String call);

    /** @return the processors this process has for nested sections (its share of the job) */
    protected abstract int freeP();

    /**
     * @param measure measures the figures (collective)
     * @return the figures of sections of {@link #nprocs()} processes of this placement: the
     *         engine's kept ones, else {@code measure}'s (kept then)
     */
    protected abstract ProbeHarness.Fit probeFit(Supplier<ProbeHarness.Fit> measure);

    /** @return the key of this placement in the probe's disk cache */
    protected abstract String probeKey();

    /** @return the time budget of one probe measurement */
    protected abstract long probeNanos();

    /**
     * Runs {@code spmd} as this process of the section {@code ctx} belongs to, then ends its part
     * of the section (the end round) and frees it: what every multi-JVM engine does for each
     * process of a section. Records the section's Flight Recorder event.
     *
     * @param engine the engine's name, for the event
     * @param call   e.g. {@code "exec(p=4)"}
     * @return the section's failure (with the causes at pid 0), or null if it ended well
     */
    public static FatalException runProcess(SuperstepContext ctx, Spmd spmd, String engine, String call) {
        Throwable threw = null;
        org.lpf4j.spi.kit.SectionEvent section = SuperstepRecorder.beginSection();
        try {
            spmd.run(ctx);
        } catch (Throwable t) {
            threw = t;
        }
        SuperstepRecorder.endSection(section, engine, call, ctx.pid(), ctx.nprocs(), ctx.superstep(), threw != null);
        try {
            ctx.finish(threw);
        } catch (RuntimeException | Error e) {
            closeAfterFailure(ctx, e);
            throw e;
        }
        if (threw != null) closeAfterFailure(ctx, threw);
        else ctx.close();
        return ctx.outcome(call);
    }

    /**
     * Closes a section whose process threw {@code failure}: a superstep it left may still have
     * transfers pending, whose buffers then stay allocated, and the failure, not that, is what
     * the process reports (a section that ended well with transfers pending still throws).
     */
    private static void closeAfterFailure(SuperstepContext ctx, Throwable failure) {
        try {
            ctx.close();
        } catch (IllegalStateException pending) {
            failure.addSuppressed(pending);
        }
    }

    /** Checks that the section has not ended; throws its failure otherwise. For the engine's own calls. */
    protected final void requireLive(String call) { end.live(call); }

    /**
     * Frees the protocol's buffers and the transport, then the engine's own ({@link #closeEngine});
     * after a passed sync deadline nothing (the transport may still write into them: the job is ending).
     *
     * @throws IllegalStateException if transfers are still pending
     */
    public final void close() {
        if (end.deadlinePassed()) return;
        int pending = exchange.pendingTransfers();
        if (pending > 0) { // the transport may still write into the buffers: they stay allocated
            throw new IllegalStateException("the section of pid " + pid + " of " + nprocs + " ended with " + pending
                    + " transfers of superstep " + superstep + " pending");
        }
        exchange.close(); // and the transport
        round.close();
        end.close();
        closeEngine();
    }

    /** Releases what the engine holds for this section beyond the transport (e.g. a communicator). */
    protected abstract void closeEngine();

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[pid " + pid + " of " + nprocs + ", superstep " + superstep + "]";
    }
}
