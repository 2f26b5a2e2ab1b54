package org.lpf4j.bsplib;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The four queues of one superstep's outgoing requests, as parallel primitive arrays that double
 * when full: buffered puts (their records are in the {@link Streams}), hpputs, gets and messages;
 * with the per-destination totals the sync's headers carry. Adding a request allocates nothing
 * once the arrays and buffers have grown. The arguments are checked by {@link Bsplib} before.
 */
final class Outgoing {
    private final Context ctx;
    private final Streams streams;
    /** hpput sources copied at the sync, and the exchange of pushed sizes. */
    final Buffer putBuf;
    /** Where the gets' bytes arrive before they are copied to their destinations. */
    final Buffer getBuf;

    /** The tag size of messages sent in this superstep, and the one set for the next. */
    long tagSize, nextTagSize;

    // The buffered puts (records in the streams or the spill buffer).
    int nBp;
    private int[] bpPid = new int[16];
    private Memslot[] bpDst = new Memslot[16];
    private long[] bpDstOff = new long[16];
    private long[] bpSize = new long[16];
    private long[] bpLoc = new long[16];

    // The hpputs.
    int nHp;
    private int[] hpPid = new int[16];
    private Memslot[] hpDst = new Memslot[16];
    private long[] hpDstOff = new long[16];
    private long[] hpSize = new long[16];
    private Memslot[] hpSrc = new Memslot[16];            // null: from putBuf at hpSrcOff
    private long[] hpSrcOff = new long[16];
    private MemorySegment[] hpLate = new MemorySegment[16]; // an unregistered source: copied at the sync

    // The gets.
    int nGet;
    private int[] getPid = new int[16];
    private Memslot[] getSrc = new Memslot[16];
    private long[] getSrcOff = new long[16];
    private long[] getSize = new long[16];
    private MemorySegment[] getDst = new MemorySegment[16];
    private long[] getDstOff = new long[16];
    private long[] getBufOff = new long[16];

    // The messages (records in the streams or the spill buffer).
    int nMsg;
    private int[] msgDst = new int[16];
    private long[] msgLoc = new long[16];
    private long[] msgLen = new long[16];
    private MemorySegment[] msgLateTag = new MemorySegment[16];     // hpsend: copied at the sync
    private MemorySegment[] msgLatePayload = new MemorySegment[16];
    private long[] msgLateTagOff = new long[16], msgLatePayloadOff = new long[16];

    /** Per destination: requests, message record bytes, messages, payload bytes. */
    final long[] reqTo, msgBytesTo, msgsTo, payloadTo;

    Outgoing(Context ctx, Streams streams) {
        this.ctx = ctx;
        this.streams = streams;
        putBuf = new Buffer(ctx);
        getBuf = new Buffer(ctx);
        int p = ctx.nprocs();
        reqTo = new long[p];
        msgBytesTo = new long[p];
        msgsTo = new long[p];
        payloadTo = new long[p];
    }

    /** A buffered put: its record (and a copy of the bytes) goes into q's stream now. */
    void put(int q, AreaTable.Reg dst, long dstOffset, MemorySegment src, long srcOffset, long nbytes) {
        long loc = streams.putRecord(q, dst.seq, dstOffset, src, srcOffset, nbytes);
        if (nBp == bpPid.length) growBps();
        int i = nBp++;
        bpPid[i] = q;
        bpDst[i] = dst.slot;
        bpDstOff[i] = dstOffset;
        bpSize[i] = nbytes;
        bpLoc[i] = loc;
        reqTo[q]++;
    }

    /** An hpput: from the registration {@code from} when the source lies inside it, else copied at the sync. */
    void hpput(int q, AreaTable.Reg dst, long dstOffset, AreaTable.Reg from, MemorySegment src, long srcOffset, long nbytes) {
        if (nHp == hpPid.length) growHps();
        int i = nHp++;
        hpPid[i] = q;
        hpDst[i] = dst.slot;
        hpDstOff[i] = dstOffset;
        hpSize[i] = nbytes;
        boolean direct = from != null && srcOffset <= from.size - nbytes;
        hpSrc[i] = direct ? from.slot : null;
        hpSrcOff[i] = srcOffset;
        hpLate[i] = direct ? null : src;
        reqTo[q]++;
    }

    /** A get: its bytes arrive in the get buffer and are copied to {@code dst} after the gets' superstep. */
    void get(int q, AreaTable.Reg src, long srcOffset, MemorySegment dst, long dstOffset, long nbytes) {
        if (nGet == getPid.length) growGets();
        int i = nGet++;
        getPid[i] = q;
        getSrc[i] = src.slot;
        getSrcOff[i] = srcOffset;
        getSize[i] = nbytes;
        getDst[i] = dst;
        getDstOff[i] = dstOffset;
        getBufOff[i] = getBuf.take(nbytes);
        reqTo[q]++;
    }

    /** A message: its record goes into q's stream now; with {@code late} its tag and payload are copied at the sync. */
    void send(int q, MemorySegment tag, long tagOffset, MemorySegment payload, long payloadOffset, long nbytes, boolean late) {
        if (nMsg == msgDst.length) growMsgs();
        long rec = Streams.msgRecord(tagSize, nbytes);
        long loc = streams.msgRecord(q, rec, nbytes);
        int i = nMsg++;
        msgDst[i] = q;
        msgLoc[i] = loc;
        msgLen[i] = rec;
        msgLateTag[i] = late && tagSize > 0 ? tag : null;
        msgLatePayload[i] = late && nbytes > 0 ? payload : null;
        msgLateTagOff[i] = tagOffset;
        msgLatePayloadOff[i] = payloadOffset;
        msgBytesTo[q] += rec;
        msgsTo[q]++;
        payloadTo[q] += nbytes;
        if (!late) streams.copyMsg(loc, tagSize, tag, tagOffset, payload, payloadOffset, nbytes);
    }

    /** hpsend and hpput read their sources now (at the start of the sync). */
    void readLateSources() {
        for (int i = 0; i < nMsg; i++) {
            if (msgLateTag[i] != null || msgLatePayload[i] != null) {
                streams.copyMsg(msgLoc[i], tagSize, msgLateTag[i], msgLateTagOff[i], msgLatePayload[i], msgLatePayloadOff[i],
                        streams.msgLength(msgLoc[i]));
                msgLateTag[i] = null;
                msgLatePayload[i] = null;
            }
        }
        for (int i = 0; i < nHp; i++) {
            if (hpLate[i] != null) {
                long at = putBuf.take(hpSize[i]);
                MemorySegment.copy(hpLate[i], hpSrcOff[i], putBuf.seg, at, hpSize[i]);
                hpSrcOff[i] = at;
                hpLate[i] = null;
            }
        }
    }

    /** Queues the gets as core requests. */
    void issueGets() {
        if (nGet == 0) return;
        Memslot gs = getBuf.slot();
        for (int i = 0; i < nGet; i++) ctx.get(getPid[i], getSrc[i], getSrcOff[i], gs, getBufOff[i], getSize[i]);
    }

    /** Queues the hpputs as core requests. */
    void issueHpputs() {
        if (nHp == 0) return;
        Memslot ps = putBuf.slot();
        for (int i = 0; i < nHp; i++) ctx.put(hpSrc[i] == null ? ps : hpSrc[i], hpSrcOff[i], hpPid[i], hpDst[i], hpDstOff[i], hpSize[i]);
    }

    /** Queues the buffered puts as core puts from their records (the full protocol). */
    void issueBufferedPuts() {
        for (int i = 0; i < nBp; i++) {
            long loc = bpLoc[i];
            ctx.put(streams.slotOf(loc), Streams.offOf(loc) + Streams.PUT_HDR, bpPid[i], bpDst[i], bpDstOff[i], bpSize[i]);
            bpDst[i] = null;
        }
    }

    /** Copies the gets' bytes to their destinations (after the superstep that served them). */
    void copyGetsOut() {
        for (int i = 0; i < nGet; i++) {
            MemorySegment.copy(getBuf.seg, getBufOff[i], getDst[i], getDstOff[i], getSize[i]);
            getDst[i] = null;
        }
    }

    /** Copies the message records into {@code outbox}, grouped per destination from {@code outboxOff[q]} (advanced). */
    void stageMessages(MemorySegment outbox, long[] outboxOff) {
        for (int i = 0; i < nMsg; i++) {
            int q = msgDst[i];
            MemorySegment.copy(streams.segOf(msgLoc[i]), Streams.offOf(msgLoc[i]), outbox, outboxOff[q], msgLen[i]);
            outboxOff[q] += msgLen[i];
        }
    }

    /** Forgets this superstep's requests (done or dropped). */
    void reset() {
        nBp = 0;
        nHp = 0;
        nGet = 0;
        nMsg = 0;
        putBuf.used = 0;
        getBuf.used = 0;
        Arrays.fill(reqTo, 0);
        Arrays.fill(msgBytesTo, 0);
        Arrays.fill(msgsTo, 0);
        Arrays.fill(payloadTo, 0);
    }

    void end() {
        putBuf.release();
        getBuf.release();
    }

    private void growBps() {
        int n = bpPid.length * 2;
        bpPid = Arrays.copyOf(bpPid, n);
        bpDst = Arrays.copyOf(bpDst, n);
        bpDstOff = Arrays.copyOf(bpDstOff, n);
        bpSize = Arrays.copyOf(bpSize, n);
        bpLoc = Arrays.copyOf(bpLoc, n);
    }

    private void growHps() {
        int n = hpPid.length * 2;
        hpPid = Arrays.copyOf(hpPid, n);
        hpDst = Arrays.copyOf(hpDst, n);
        hpDstOff = Arrays.copyOf(hpDstOff, n);
        hpSize = Arrays.copyOf(hpSize, n);
        hpSrc = Arrays.copyOf(hpSrc, n);
        hpSrcOff = Arrays.copyOf(hpSrcOff, n);
        hpLate = Arrays.copyOf(hpLate, n);
    }

    private void growGets() {
        int n = getPid.length * 2;
        getPid = Arrays.copyOf(getPid, n);
        getSrc = Arrays.copyOf(getSrc, n);
        getSrcOff = Arrays.copyOf(getSrcOff, n);
        getSize = Arrays.copyOf(getSize, n);
        getDst = Arrays.copyOf(getDst, n);
        getDstOff = Arrays.copyOf(getDstOff, n);
        getBufOff = Arrays.copyOf(getBufOff, n);
    }

    private void growMsgs() {
        int n = msgDst.length * 2;
        msgDst = Arrays.copyOf(msgDst, n);
        msgLoc = Arrays.copyOf(msgLoc, n);
        msgLen = Arrays.copyOf(msgLen, n);
        msgLateTag = Arrays.copyOf(msgLateTag, n);
        msgLatePayload = Arrays.copyOf(msgLatePayload, n);
        msgLateTagOff = Arrays.copyOf(msgLateTagOff, n);
        msgLatePayloadOff = Arrays.copyOf(msgLatePayloadOff, n);
    }
}
