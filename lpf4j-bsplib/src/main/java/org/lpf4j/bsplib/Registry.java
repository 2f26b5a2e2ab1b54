package org.lpf4j.bsplib;

import org.lpf4j.Context;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Registration (push_reg / pop_reg): the areas by identity, the registrations in push order
 * (their sequence number names them in a put record, the same on every process), and this
 * superstep's pushes and pops, which take effect when the sync {@linkplain #finishSuperstep ends
 * the superstep} or are {@linkplain #voidSuperstep voided} when the processes disagree. O(1) per
 * push; a pop walks the area's stack. A popped registration's sequence number is reused by a later
 * push (the most recently freed first: every process frees and takes them in the same order), so
 * the numbers in use stay as many as the registrations alive at once.
 */
final class Registry {
    private final Context ctx;
    private final int nprocs;
    private final AreaTable areas = new AreaTable();
    private final List<AreaTable.Reg> live = new ArrayList<>();
    private final List<AreaTable.Reg> bySeq = new ArrayList<>();
    /** Sequence numbers of popped registrations, a stack: the next push takes the top. */
    private int[] freeSeqs = new int[8];
    private int freeSeqCount;
    /** The sequence numbers taken when this superstep began: a push's number at or above it was appended. */
    private int seqsBeforeSuperstep;
    private final List<AreaTable.Reg> pushes = new ArrayList<>();
    private final List<AreaTable.Reg> pops = new ArrayList<>();

    Registry(Context ctx) {
        this.ctx = ctx;
        this.nprocs = ctx.nprocs();
    }

    /** @return whether {@code area} is {@code MemorySegment.NULL} (C's NULL pointer): native at address 0 */
    static boolean isNull(MemorySegment area) { return area.isNative() && area.address() == 0; }

    void push(MemorySegment area) {
        AreaTable.Reg r = new AreaTable.Reg(area, nprocs);
        if (freeSeqCount > 0) {
            r.seq = freeSeqs[--freeSeqCount];
            bySeq.set(r.seq, r);
        } else {
            r.seq = bySeq.size();
            bySeq.add(r);
        }
        areas.push(r);
        pushes.add(r);
    }

    /**
     * Marks the latest active registration of {@code area} for popping at the sync.
     *
     * @return null, or why there is nothing to pop
     */
    String pop(MemorySegment area) {
        AreaTable.Reg r = areas.top(area);
        boolean pending = false;
        while (r != null && r.state != AreaTable.Reg.ACTIVE) {
            pending |= r.state == AreaTable.Reg.PENDING;
            r = r.below;
        }
        if (r == null) {
            return pending ? "the area has no registration to pop (it was pushed in this superstep: pop it after the next sync)"
                    : "the area has no registration to pop (never pushed, or every registration of it is popped)";
        }
        r.state = AreaTable.Reg.POPPING;
        pops.add(r);
        return null;
    }

    /** @return the latest registration of {@code area} usable in this superstep, or null */
    AreaTable.Reg usable(MemorySegment area) { return areas.usable(area); }

    /** @return whether {@code area} has any registration, usable or pushed in this superstep */
    boolean known(MemorySegment area) { return areas.top(area) != null; }

    /** @return the registration with sequence number {@code seq} if it is usable here, else null */
    AreaTable.Reg bySeq(int seq) {
        AreaTable.Reg r = seq >= 0 && seq < bySeq.size() ? bySeq.get(seq) : null;
        return r != null && r.usable() ? r : null;
    }

    int pushes() { return pushes.size(); }

    /** @return the sequence numbers taken so far, free ones included (for tests) */
    int sequenceNumbers() { return bySeq.size(); }

    private void freeSeq(int seq) {
        bySeq.set(seq, null);
        if (freeSeqCount == freeSeqs.length) freeSeqs = Arrays.copyOf(freeSeqs, 2 * freeSeqCount);
        freeSeqs[freeSeqCount++] = seq;
    }

    int pops() { return pops.size(); }

    /** @return the registrations active after this superstep at most (the register slots they need) */
    int slotsNeeded() { return live.size() + pushes.size(); }

    long pushedSize(int i) { return pushes.get(i).size; }

    long[] pushedSizes(int i) { return pushes.get(i).sizes; }

    /** @return a digest of which registrations this superstep pops, in order (they must agree) */
    long popped() {
        long h = 0;
        for (int i = 0; i < pops.size(); i++) h = h * 0x9E3779B97F4A7C15L + pops.get(i).seq + 1;
        return h;
    }

    /** The processes disagree: this superstep's pushes and pops never happened. */
    void voidSuperstep() {
        // In reverse: a number the push appended is dropped again, one it took from the stack goes back on top.
        for (int i = pushes.size() - 1; i >= 0; i--) {
            AreaTable.Reg r = pushes.get(i);
            areas.remove(r);
            if (r.seq >= seqsBeforeSuperstep) bySeq.remove(r.seq);
            else freeSeq(r.seq);
        }
        for (int i = 0; i < pops.size(); i++) pops.get(i).state = AreaTable.Reg.ACTIVE;
        pushes.clear();
        pops.clear();
        seqsBeforeSuperstep = bySeq.size();
    }

    /** Registers this superstep's pushes with the context (collective: same order everywhere). */
    void registerPushes() {
        for (int i = 0; i < pushes.size(); i++) pushes.get(i).slot = ctx.registerGlobal(pushes.get(i).area);
    }

    /** Pops and pushes take effect (indexed loops: no iterator per sync). */
    void finishSuperstep() {
        for (int i = 0; i < pops.size(); i++) {
            AreaTable.Reg r = pops.get(i);
            ctx.deregister(r.slot);
            areas.remove(r);
            live.remove(r);
            freeSeq(r.seq);
        }
        for (int i = 0; i < pushes.size(); i++) {
            pushes.get(i).state = AreaTable.Reg.ACTIVE;
            live.add(pushes.get(i));
        }
        pushes.clear();
        pops.clear();
        seqsBeforeSuperstep = bySeq.size();
    }

    /** Deregisters every active registration (end). */
    void end() {
        for (int i = live.size() - 1; i >= 0; i--) ctx.deregister(live.get(i).slot);
        live.clear();
    }
}
