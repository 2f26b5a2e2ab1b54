package org.lpf4j.bsplib;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.lpf4j.bsplib.Streams.H_DIRECT;
import static org.lpf4j.bsplib.Streams.H_FLAGS;
import static org.lpf4j.bsplib.Streams.H_MAX_STREAM;
import static org.lpf4j.bsplib.Streams.H_MAX_TO;
import static org.lpf4j.bsplib.Streams.H_MSGS;
import static org.lpf4j.bsplib.Streams.H_MSG_BYTES;
import static org.lpf4j.bsplib.Streams.H_OUT;
import static org.lpf4j.bsplib.Streams.H_OUTBOX_OFF;
import static org.lpf4j.bsplib.Streams.H_PAYLOAD;
import static org.lpf4j.bsplib.Streams.H_POP;
import static org.lpf4j.bsplib.Streams.H_POPPED;
import static org.lpf4j.bsplib.Streams.H_PUSH;
import static org.lpf4j.bsplib.Streams.H_REQS;
import static org.lpf4j.bsplib.Streams.H_STREAM;
import static org.lpf4j.bsplib.Streams.H_TAG;
import static org.lpf4j.bsplib.Streams.HDR;
import static org.lpf4j.bsplib.Streams.R_MAX;
import static org.lpf4j.bsplib.Streams.msgRecord;

/**
 * The sync ({@code bsp_sync}) and the capacities it grows: the one-superstep sync, and the full
 * protocol (grow, gets, data) when the headers say that the superstep does not fit; see
 * {@link Bsplib}'s class comment for the protocol and its cost. Owns the context's queue and
 * register capacities, the request budget, the outbox (global) and the receive buffer.
 */
final class Sync {
    private static final long F_GETS = 1, F_SENDS = 2, F_OUTBOX_GROWS = 4, F_INCOMPLETE = 8;
    /** Registrations of the layer: inbox regions and outbox (global); streams, receive, spill, put and get buffers. */
    private static final int OWN_REGS = 7;
    /** Gets and hpputs a process may issue in the one-superstep sync: at first, and at most. */
    private static final long BUDGET_INIT = 16, BUDGET_MAX = 1L << 20;

    private final Context ctx;
    private final int pid, nprocs;
    private final Registry registry;
    private final Streams streams;
    private final Outgoing out;
    private final Incoming in;

    private long queueCap, regCap, budget = BUDGET_INIT;
    private MemorySegment outbox;
    private Memslot outboxSlot;
    private final Buffer inbox;
    private final long[] outboxOff, inboxOff, outboxFrom;
    /** The user's syncs since begin, this one included while it runs: the superstep numbers in errors. */
    private long syncs;

    /** Begins: sets the context's capacities and registers the layer's memory. Two core supersteps. */
    Sync(Context ctx, Registry registry, Streams streams, Outgoing out, Incoming in) {
        this.ctx = ctx;
        this.pid = ctx.pid();
        this.nprocs = ctx.nprocs();
        this.registry = registry;
        this.streams = streams;
        this.out = out;
        this.in = in;
        int p = nprocs;
        inbox = new Buffer(ctx);
        outboxOff = new long[p + 1];
        inboxOff = new long[p + 1];
        outboxFrom = new long[p];
        queueCap = fastQueue(p, budget);
        regCap = OWN_REGS + 1 + 8;
        ctx.resizeMemoryRegister(regCap);
        ctx.resizeMessageQueue(queueCap);
        ctx.sync();
        outbox = Arena.ofAuto().allocate(64, 8);
        outboxSlot = ctx.registerGlobal(outbox);
        streams.open();
        ctx.sync();
    }

    /** The queue one-superstep syncs need: p − 1 streams out and in, the budget out, p budgets in. */
    private static long fastQueue(int p, long budget) {
        return 2L * p + budget * (p + 1);
    }

    /** @return how errors found by the sync name it: the superstep counted from begin (the first sync ends superstep 1) */
    static String where(int pid, int nprocs, long superstep) {
        return "Bsplib.sync at pid " + pid + " of " + nprocs + " (superstep " + superstep + " since begin)";
    }

    void sync() {
        syncs++;
        int p = nprocs;
        out.readLateSources();
        // ---- the headers, and the streams that fit
        long sent = 0, maxTo = 0, popped = registry.popped(), direct = out.nHp + out.nGet;
        outboxOff[0] = 0; // stageMessages advanced every offset last time, the first one included
        for (int q = 0; q < p; q++) {
            sent += out.reqTo[q];
            maxTo = Math.max(maxTo, out.reqTo[q]);
            outboxOff[q + 1] = outboxOff[q] + out.msgBytesTo[q];
        }
        boolean incomplete = direct > budget || streams.anySpilled();
        long maxStream = streams.maxStream(), outboxNeed = outboxOff[p];
        long flags = (out.nGet > 0 ? F_GETS : 0) | (out.nMsg > 0 ? F_SENDS : 0)
                | (outboxNeed > outbox.byteSize() ? F_OUTBOX_GROWS : 0) | (incomplete ? F_INCOMPLETE : 0);
        for (int q = 0; q < p; q++) {
            streams.header(q, H_STREAM, streams.streamBytes(q));
            streams.header(q, H_REQS, out.reqTo[q]);
            streams.header(q, H_MSG_BYTES, out.msgBytesTo[q]);
            streams.header(q, H_MSGS, out.msgsTo[q]);
            streams.header(q, H_PAYLOAD, out.payloadTo[q]);
            streams.header(q, H_OUTBOX_OFF, outboxOff[q]);
            streams.header(q, H_OUT, sent);
            streams.header(q, H_MAX_TO, maxTo);
            streams.header(q, H_FLAGS, flags);
            streams.header(q, H_TAG, out.nextTagSize);
            streams.header(q, H_PUSH, registry.pushes());
            streams.header(q, H_POP, registry.pops());
            streams.header(q, H_POPPED, popped);
            streams.header(q, H_MAX_STREAM, maxStream);
            streams.header(q, H_DIRECT, direct);
            streams.send(q);
        }
        if (!incomplete) {
            out.issueGets();
            out.issueHpputs();
        }
        ctx.sync();
        // ---- what the headers say (identical conclusions on every process)
        long maxOut = 0, sumMaxTo = 0, allFlags = 0, inBytes = 0, inPay = 0, maxStreamAll = 0, maxDirect = 0;
        String mismatch = null;
        for (int r = 0; r < p; r++) {
            maxOut = Math.max(maxOut, streams.header(r, H_OUT));
            sumMaxTo += streams.header(r, H_MAX_TO);
            allFlags |= streams.header(r, H_FLAGS);
            maxStreamAll = Math.max(maxStreamAll, streams.header(r, H_MAX_STREAM));
            maxDirect = Math.max(maxDirect, streams.header(r, H_DIRECT));
            inboxOff[r] = inBytes;
            inBytes += streams.header(r, H_MSG_BYTES);
            inPay += streams.header(r, H_PAYLOAD);
            outboxFrom[r] = streams.header(r, H_OUTBOX_OFF); // kept: a growing region replaces the inboxes
            if (mismatch == null) mismatch = compare(r, popped);
        }
        inboxOff[p] = inBytes;
        if (mismatch != null) { // this superstep's registrations are void everywhere
            registry.voidSuperstep();
            out.nextTagSize = out.tagSize;
            in.clear();
            reset();
            throw new IllegalStateException(where(pid, nprocs, syncs) + ": the processes disagree: " + mismatch);
        }
        if ((allFlags & F_INCOMPLETE) == 0 && registry.pushes() == 0) {
            // ---- the one-superstep sync: gets out first, then the puts of every stream
            out.copyGetsOut();
            in.clear();
            for (int r = 0; r < p; r++) streams.applyStream(r, registry, in, out.tagSize, syncs);
            finish(inPay);
            return;
        }
        long queueNeed = maxOut + sumMaxTo + ((allFlags & F_SENDS) != 0 ? 2L * p : 0);
        grow(maxDirect, maxStreamAll, queueNeed, (allFlags & F_OUTBOX_GROWS) != 0, outboxNeed);
        fullProtocol((allFlags & F_GETS) != 0, inBytes, inPay);
    }

    private String compare(int r, long popped) {
        long push = streams.header(r, H_PUSH), pop = streams.header(r, H_POP), tag = streams.header(r, H_TAG);
        if (push != registry.pushes()) return "pushReg called " + registry.pushes() + " times here, " + push + " times at pid " + r;
        if (pop != registry.pops()) return "popReg called " + registry.pops() + " times here, " + pop + " times at pid " + r;
        if (streams.header(r, H_POPPED) != popped) {
            return "popReg removes other registrations here than at pid " + r
                    + " (each pops the latest registration of the area it names: the areas or their order differ)";
        }
        if (tag != out.nextTagSize) return "tag size " + out.nextTagSize + " here, " + tag + " at pid " + r;
        return null;
    }

    /** Grows the capacities, collectively, when this superstep needs more (one empty superstep then). */
    private void grow(long maxDirect, long maxStreamAll, long queueNeed, boolean outboxGrows, long outboxNeed) {
        int p = nprocs;
        long newBudget = budget, newRegion = streams.regionBytes(), pushes = registry.pushes();
        while (newBudget < maxDirect && newBudget < BUDGET_MAX) newBudget *= 2;
        while (newRegion < HDR + maxStreamAll && newRegion < R_MAX) newRegion *= 2;
        while (newRegion < HDR + 8L * pushes) newRegion *= 2; // the sizes of the pushed areas (fullProtocol)
        queueNeed = Math.max(fastQueue(p, newBudget), queueNeed + (pushes == 0 ? 0 : 2L * p));
        long regNeed = OWN_REGS + 1 + registry.slotsNeeded();
        boolean regionGrows = newRegion != streams.regionBytes();
        if (queueNeed > queueCap || regNeed > regCap || outboxGrows || regionGrows) {
            if (queueNeed > queueCap) {
                queueCap = Math.max(queueNeed, 2 * queueCap);
                ctx.resizeMessageQueue(queueCap);
            }
            if (regNeed > regCap) {
                regCap = Math.max(regNeed, 2 * regCap);
                ctx.resizeMemoryRegister(regCap);
            }
            // Collective re-registrations, in the same order everywhere (each drops its old slot first).
            if (outboxGrows) {
                ctx.deregister(outboxSlot);
                if (outboxNeed > outbox.byteSize()) outbox = Arena.ofAuto().allocate(Math.max(outboxNeed, 2 * outbox.byteSize()), 8);
                outboxSlot = ctx.registerGlobal(outbox);
            }
            // The headers were read; this superstep's streams are sent by the data superstep.
            if (regionGrows) streams.growInboxes(newRegion);
            ctx.sync();
        }
        budget = newBudget;
    }

    /** The rest of a sync that did not fit one superstep: gets, then the data superstep. */
    private void fullProtocol(boolean gets, long inBytes, long inPay) {
        int p = nprocs, pushes = registry.pushes();
        registry.registerPushes(); // active from the end of this sync
        if (gets) { // before any put
            out.issueGets();
            ctx.sync();
            out.copyGetsOut();
        }
        // ---- puts from their records, hpputs, and the messages fetched by their receivers
        out.issueBufferedPuts();
        if (pushes > 0) { // every process learns the size each process registered
            long at = out.putBuf.take(8L * pushes); // before issueHpputs registers putBuf
            for (int i = 0; i < pushes; i++) out.putBuf.seg.set(JAVA_LONG, at + 8L * i, registry.pushedSize(i));
            streams.scatter(out.putBuf.slot(), at, 8L * pushes);
        }
        out.issueHpputs();
        out.stageMessages(outbox, outboxOff);
        if (inBytes > 0) {
            if (inBytes > inbox.seg.byteSize()) inbox.grow(inBytes, 0);
            Memslot is = inbox.slot();
            for (int r = 0; r < p; r++) {
                long n = inboxOff[r + 1] - inboxOff[r];
                if (n > 0) ctx.get(r, outboxSlot, outboxFrom[r], is, inboxOff[r], n);
            }
        }
        ctx.sync();
        for (int i = 0; i < pushes; i++) {
            long[] sizes = registry.pushedSizes(i);
            for (int r = 0; r < p; r++) sizes[r] = streams.received(r, 8L * i);
        }
        in.clear();
        for (long at = 0; at < inBytes; at += msgRecord(out.tagSize, inbox.seg.get(JAVA_LONG, at + 8))) in.enqueue(inbox.seg, at);
        finish(inPay);
    }

    /** Ends the superstep: pops and pushes take effect, the tag size changes, the queue holds the messages just received. */
    private void finish(long inPay) {
        registry.finishSuperstep();
        in.delivered(out.tagSize, inPay);
        out.tagSize = out.nextTagSize;
        reset();
    }

    private void reset() {
        out.reset();
        streams.reset();
    }

    void end() {
        ctx.deregister(outboxSlot);
        inbox.release();
    }
}
