package org.lpf4j.engine.mpi;

import org.lpf4j.spi.kit.RequestChecks;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * The data phase of a sync that has messages (C LPF's {@code mpimsg} design): the counts (how
 * many packed bytes each process sends to each; in a small section the sync's own round carries
 * them, see {@link MpiContext}, else an {@code MPI_Alltoall} of one long per pair), then one
 * packed message per pair that carries every
 * request's header and the payloads of the small puts, a message of its own for each large put
 * (sent from the user's native segment in place), and the replies to gets.
 *
 * <p><b>Write conflicts resolve as a serialisation</b> because the destination process writes its
 * own memory: a large put is received straight into the destination only if its area overlaps no
 * other such receive of this sync and no area this process is still sending from; everything else
 * is received into a staging buffer and copied, after every transfer has completed, in a fixed
 * order (by source pid, then in the order the source queued). The order is: direct large puts,
 * then the other puts, then the writes of this process's gets. Gets read the owner's memory before
 * the owner writes anything in this sync.
 *
 * <p>Costs per sync with messages: the counts (nothing more in a small section, else one
 * {@code MPI_Alltoall}), at most one packed message per pair,
 * one message per large put (and per get reply stream); small payloads are copied twice (pack,
 * apply), large ones to native destinations not at all, large ones to heap destinations (or in
 * conflict) once. Allocates only when a buffer must grow.
 */
final class Exchange implements AutoCloseable {
    static final int TAG_PACKED = 11, TAG_LARGE = 12, TAG_REPLY = 13;
    /** Bytes of one request header in a packed message: kind, slot (ints), offset, size (longs). */
    static final int HEADER = 24;
    static final int PUT_INLINE = 1, PUT_LARGE = 2, GET = 3, DEFINE = 4;
    /** The low byte of a header's kind word is the kind; above it, a combining put's attribute id + 1. */
    static final int KIND_MASK = 0xff;
    /** Payloads of at least this many bytes to another process travel as their own message. */
    static final long LARGE = 16 * 1024;

    private final Mpi mpi;
    private final long comm;
    private final CombinerTable combiners;
    private final int[] progress;
    /** Incoming combining puts: the attribute, null for a plain put. */
    private org.lpf4j.MsgAttr[] inAttr = new org.lpf4j.MsgAttr[16];
    private final int pid, p;
    private final NativeBuffer counts = new NativeBuffer(), packedOut = new NativeBuffer(), packedIn = new NativeBuffer(),
            replyOut = new NativeBuffer(), replyIn = new NativeBuffer(), staging = new NativeBuffer(), sendStaging = new NativeBuffer();
    private final RequestArray early, rest;
    private final long[] outBytes, outAt, inBytes, inAt, replyInBytes, replyInAt, replyOutBytes, replyOutAt;
    /** Areas this process sends from in place during the sync: [start, end) addresses. */
    private long[] sendingStart = new long[16], sendingEnd = new long[16];
    private int sending;
    /** Large puts received straight into their destination: [start, end) addresses. */
    private long[] directStart = new long[16], directEnd = new long[16];
    private int direct;
    /** Incoming puts, in apply order: where the payload is (-1: received directly), the destination. */
    private long[] inPayload = new long[16], inDstOffset = new long[16], inSize = new long[16];
    private int[] inSlot = new int[16], inFrom = new int[16];
    private boolean[] inFromStaging = new boolean[16];
    private int incoming;

    Exchange(Mpi mpi, long comm, int pid, int p, CombinerTable combiners) {
        this.mpi = mpi;
        this.combiners = combiners;
        this.progress = new int[p];
        this.comm = comm;
        this.pid = pid;
        this.p = p;
        early = new RequestArray(mpi, p);
        rest = new RequestArray(mpi, 4 * p);
        outBytes = new long[p]; outAt = new long[p]; inBytes = new long[p]; inAt = new long[p];
        replyInBytes = new long[p]; replyInAt = new long[p]; replyOutBytes = new long[p]; replyOutAt = new long[p];
    }

    private static long pad(long n) { return (n + 7) & ~7L; }

    /** Combining puts always travel inline: they are applied by copying through the operator anyway. */
    private boolean isLarge(int dst, long size, int attr) { return dst != pid && size >= LARGE && attr < 0; }

    /**
     * Executes every queued request of every process of the section, the counts travelling in an
     * {@code MPI_Alltoall} of their own.
     *
     * @return the first destination rule some incoming request broke (the sync must throw it), or null
     */
    RuntimeException run(RequestList q, SlotRegister register) {
        count(q);
        MemorySegment c = counts.atLeast(16L * p);
        for (int d = 0; d < p; d++) c.setAtIndex(ValueLayout.JAVA_LONG, d, outBytes[d]);
        mpi.alltoallBytes(c.address(), c.address() + 8L * p, 8, comm);
        for (int s = 0; s < p; s++) inBytes[s] = c.getAtIndex(ValueLayout.JAVA_LONG, p + s);
        return move(q, register);
    }

    /**
     * Executes every queued request of every process of the section when the sync's round already
     * carried the counts: {@link #count} ran before it, and the round brought what each process
     * sends to this one.
     *
     * @param in the packed bytes each process sends to this one: {@code p} longs from {@code at},
     *           {@code stride} bytes apart
     * @return the first destination rule some incoming request broke (the sync must throw it), or null
     */
    RuntimeException run(RequestList q, SlotRegister register, MemorySegment in, long at, long stride) {
        for (int s = 0; s < p; s++) inBytes[s] = in.get(ValueLayout.JAVA_LONG, at + stride * s);
        return move(q, register);
    }

    /** @return the packed bytes this process sends to {@code d} in this sync (after {@link #count}) */
    long outBytes(int d) { return outBytes[d]; }

    private RuntimeException move(RequestList q, SlotRegister register) {
        layOut();
        postReceives();
        pack(q);
        early.waitAll();
        RuntimeException broken = serveAndPlace(register);
        rest.waitAll();
        RuntimeException late = apply(q, register);
        return broken != null ? broken : late;
    }

    /**
     * Counts the packed bytes this process sends to each process (headers, inline payloads,
     * operator definitions) and the reply bytes it expects for its gets. Allocates nothing.
     */
    void count(RequestList q) {
        Arrays.fill(outBytes, 0);
        Arrays.fill(replyInBytes, 0);
        combiners.progressInto(progress);
        for (int i = 0; i < q.puts; i++) {
            int d = q.putPid[i];
            int attr = q.putTag[i];
            if (attr >= progress[d]) {
                for (int j = progress[d]; j <= attr; j++) outBytes[d] += HEADER + pad(combiners.definition(j).length);
                progress[d] = attr + 1;
            }
            long size = q.putSize[i];
            outBytes[d] += isLarge(d, size, attr) ? HEADER : HEADER + pad(size);
        }
        for (int i = 0; i < q.gets; i++) {
            int s = q.getPid[i];
            outBytes[s] += HEADER;
            replyInBytes[s] += q.getSize[i];
        }
    }

    /** Where each pair's packed bytes and replies go in the buffers, which grow to fit. */
    private void layOut() {
        long o = 0, i = 0, r = 0;
        for (int k = 0; k < p; k++) {
            outAt[k] = o;
            o += outBytes[k];
            inAt[k] = i;
            if (k != pid) i += inBytes[k];
            replyInAt[k] = r;
            if (k != pid) r += replyInBytes[k];
        }
        packedOut.atLeast(o);
        packedIn.atLeast(i);
        replyIn.atLeast(r);
    }

    private void postReceives() {
        MemorySegment in = packedIn.atLeast(0), replies = replyIn.atLeast(0);
        for (int s = 0; s < p; s++) {
            if (s == pid) continue;
            if (inBytes[s] > 0) early.irecv(in, inAt[s], inBytes[s], s, TAG_PACKED, comm);
            if (replyInBytes[s] > 0) rest.irecv(replies, replyInAt[s], replyInBytes[s], s, TAG_REPLY, comm);
        }
    }

    private void pack(RequestList q) {
        MemorySegment out = packedOut.atLeast(0);
        long[] at = replyOutAt; // scratch: write cursor per destination
        System.arraycopy(outAt, 0, at, 0, p);
        long heapLarge = 0;
        for (int i = 0; i < q.puts; i++) {
            int d = q.putPid[i];
            long size = q.putSize[i];
            int attr = q.putTag[i];
            if (attr >= combiners.knownBy(d)) {
                for (int j = combiners.knownBy(d); j <= attr; j++) {
                    byte[] def = combiners.definition(j);
                    long g = at[d];
                    out.set(JAVA_INT_UNALIGNED, g, DEFINE);
                    out.set(JAVA_INT_UNALIGNED, g + 4, j);
                    out.set(JAVA_LONG_UNALIGNED, g + 8, 0);
                    out.set(JAVA_LONG_UNALIGNED, g + 16, def.length);
                    MemorySegment.copy(def, 0, out, ValueLayout.JAVA_BYTE, g + HEADER, def.length);
                    at[d] = g + HEADER + pad(def.length);
                }
                combiners.shipped(d, attr + 1);
            }
            boolean large = isLarge(d, size, attr);
            long h = at[d];
            out.set(JAVA_INT_UNALIGNED, h, (large ? PUT_LARGE : PUT_INLINE) | ((attr + 1) << 8));
            out.set(JAVA_INT_UNALIGNED, h + 4, q.putSlot[i]);
            out.set(JAVA_LONG_UNALIGNED, h + 8, q.putDstOffset[i]);
            out.set(JAVA_LONG_UNALIGNED, h + 16, size);
            at[d] = h + HEADER;
            if (large) {
                if (!q.putSource[i].isNative()) heapLarge += size;
            } else {
                MemorySegment.copy(q.putSource[i], q.putSrcOffset[i], out, h + HEADER, size);
                at[d] += pad(size);
            }
        }
        for (int i = 0; i < q.gets; i++) {
            int s = q.getPid[i];
            long h = at[s];
            out.set(JAVA_INT_UNALIGNED, h, GET);
            out.set(JAVA_INT_UNALIGNED, h + 4, q.getSlot[i]);
            out.set(JAVA_LONG_UNALIGNED, h + 8, q.getSrcOffset[i]);
            out.set(JAVA_LONG_UNALIGNED, h + 16, q.getSize[i]);
            at[s] = h + HEADER;
        }
        for (int d = 0; d < p; d++) {
            if (d != pid && outBytes[d] > 0) rest.isend(out, outAt[d], outBytes[d], d, TAG_PACKED, comm);
        }
        sending = 0;
        MemorySegment stage = heapLarge > 0 ? sendStaging.atLeast(heapLarge) : null;
        long staged = 0;
        for (int i = 0; i < q.puts; i++) {
            int d = q.putPid[i];
            long size = q.putSize[i];
            if (!isLarge(d, size, q.putTag[i])) continue;
            MemorySegment src = q.putSource[i];
            if (src.isNative()) {
                long start = src.address() + q.putSrcOffset[i];
                addSending(start, start + size);
                rest.isend(src, q.putSrcOffset[i], size, d, TAG_LARGE, comm);
            } else {
                MemorySegment.copy(src, q.putSrcOffset[i], stage, staged, size);
                rest.isend(stage, staged, size, d, TAG_LARGE, comm);
                staged += size;
            }
        }
    }

    /**
     * Serves the gets addressed to this process (reads before any write of this sync), and
     * receives every large put: straight into the destination when that is safe, else staged.
     */
    private RuntimeException serveAndPlace(SlotRegister register) {
        RuntimeException broken = null;
        long replyTotal = 0, stageTotal = 0;
        int entries = 0;
        for (int s = 0; s < p; s++) {
            MemorySegment stream = streamOf(s);
            long at = streamAt(s), end = at + inBytes[s];
            replyOutBytes[s] = 0;
            while (at < end) {
                int kind = stream.get(JAVA_INT_UNALIGNED, at) & KIND_MASK;
                long size = stream.get(JAVA_LONG_UNALIGNED, at + 16);
                at += HEADER;
                if (kind == GET) {
                    replyOutBytes[s] += size;
                } else if (kind == DEFINE) {
                    at += pad(size);
                } else {
                    entries++;
                    if (kind == PUT_LARGE) stageTotal += size;
                    else at += pad(size);
                }
            }
            replyOutAt[s] = replyTotal;
            replyTotal += replyOutBytes[s];
        }
        MemorySegment replies = replyOut.atLeast(replyTotal);
        MemorySegment stage = staging.atLeast(stageTotal);
        ensureIncoming(entries);
        incoming = 0;
        direct = 0;
        long staged = 0;
        for (int s = 0; s < p; s++) {
            MemorySegment stream = streamOf(s);
            long at = streamAt(s), end = at + inBytes[s], reply = replyOutAt[s];
            while (at < end) {
                int word = stream.get(JAVA_INT_UNALIGNED, at), kind = word & KIND_MASK, attrId = (word >>> 8) - 1;
                int slot = stream.get(JAVA_INT_UNALIGNED, at + 4);
                long offset = stream.get(JAVA_LONG_UNALIGNED, at + 8);
                long size = stream.get(JAVA_LONG_UNALIGNED, at + 16);
                at += HEADER;
                if (kind == DEFINE) {
                    byte[] def = new byte[(int) size];
                    MemorySegment.copy(stream, ValueLayout.JAVA_BYTE, at, def, 0, (int) size);
                    combiners.define(s, slot, def);
                    at += pad(size);
                    continue;
                }
                if (kind == GET) {
                    MemorySegment src = register.globalSegment(slot);
                    if (size == 0) continue;
                    if (!RequestChecks.remoteGetFits(src, offset, size)) {
                        if (broken == null) broken = RequestChecks.remoteGetTooFar(s, pid, slot, offset, size, src);
                        replies.asSlice(reply, size).fill((byte) 0);
                    } else {
                        MemorySegment.copy(src, offset, replies, reply, size);
                    }
                    reply += size;
                    continue;
                }
                if (size == 0) {
                    if (kind == PUT_INLINE) at += pad(size);
                    continue; // a no-op whatever it names, as on the threads engine
                }
                MemorySegment dst = register.globalSegment(slot);
                boolean valid = RequestChecks.remotePutFits(dst, offset, size);
                if (!valid && broken == null) broken = RequestChecks.remotePutTooFar(s, pid, slot, offset, size, dst);
                int n = incoming++;
                inAttr[n] = attrId >= 0 ? combiners.attr(s, attrId) : null;
                inFrom[n] = s;
                inSlot[n] = valid ? slot : -1;
                inDstOffset[n] = offset;
                inSize[n] = size;
                if (kind == PUT_INLINE) {
                    inPayload[n] = at;
                    inFromStaging[n] = false;
                    at += pad(size);
                } else if (valid && dst.isNative() && canReceiveDirectly(dst.address() + offset, size)) {
                    inPayload[n] = -1;
                    rest.irecv(dst, offset, size, s, TAG_LARGE, comm);
                } else {
                    inPayload[n] = staged;
                    inFromStaging[n] = true;
                    rest.irecv(stage, staged, size, s, TAG_LARGE, comm);
                    staged += size;
                }
            }
            if (s != pid && replyOutBytes[s] > 0) rest.isend(replies, replyOutAt[s], replyOutBytes[s], s, TAG_REPLY, comm);
        }
        return broken;
    }

    /** Writes the staged and inline puts in order, then this process's gets. */
    private RuntimeException apply(RequestList q, SlotRegister register) {
        MemorySegment stage = staging.atLeast(0);
        for (int n = 0; n < incoming; n++) {
            if (inPayload[n] < 0 || inSlot[n] < 0) continue;
            MemorySegment from = inFromStaging[n] ? stage : streamOf(inFrom[n]);
            if (inAttr[n] != null) {
                RequestChecks.combine(inAttr[n], from, inPayload[n], register.globalSegment(inSlot[n]), inDstOffset[n], inSize[n]);
                inAttr[n] = null;
            } else {
                MemorySegment.copy(from, inPayload[n], register.globalSegment(inSlot[n]), inDstOffset[n], inSize[n]);
            }
        }
        MemorySegment remote = replyIn.atLeast(0), own = replyOut.atLeast(0);
        long[] at = inAt; // scratch: read cursor per owner (inAt is not needed any more)
        for (int s = 0; s < p; s++) at[s] = s == pid ? replyOutAt[s] : replyInAt[s];
        for (int i = 0; i < q.gets; i++) {
            int s = q.getPid[i];
            long size = q.getSize[i];
            MemorySegment.copy(s == pid ? own : remote, at[s], q.getDestination[i], q.getDstOffset[i], size);
            at[s] += size;
        }
        return null;
    }

    /** The packed stream from {@code s}: this process's own part of the outgoing buffer when {@code s} is itself. */
    private MemorySegment streamOf(int s) {
        return s == pid ? packedOut.atLeast(0) : packedIn.atLeast(0);
    }

    private long streamAt(int s) {
        return s == pid ? outAt[s] : inAt[s];
    }

    private boolean canReceiveDirectly(long start, long size) {
        long end = start + size;
        for (int k = 0; k < sending; k++) if (start < sendingEnd[k] && sendingStart[k] < end) return false;
        for (int k = 0; k < direct; k++) if (start < directEnd[k] && directStart[k] < end) return false;
        if (direct == directStart.length) {
            directStart = Arrays.copyOf(directStart, direct * 2);
            directEnd = Arrays.copyOf(directEnd, direct * 2);
        }
        directStart[direct] = start;
        directEnd[direct++] = end;
        return true;
    }

    private void addSending(long start, long end) {
        if (sending == sendingStart.length) {
            sendingStart = Arrays.copyOf(sendingStart, sending * 2);
            sendingEnd = Arrays.copyOf(sendingEnd, sending * 2);
        }
        sendingStart[sending] = start;
        sendingEnd[sending++] = end;
    }

    private void ensureIncoming(int n) {
        if (n <= inPayload.length) return;
        int c = Math.max(n, inPayload.length * 2);
        inPayload = Arrays.copyOf(inPayload, c);
        inDstOffset = Arrays.copyOf(inDstOffset, c);
        inSize = Arrays.copyOf(inSize, c);
        inSlot = Arrays.copyOf(inSlot, c);
        inFrom = Arrays.copyOf(inFrom, c);
        inFromStaging = Arrays.copyOf(inFromStaging, c);
        inAttr = Arrays.copyOf(inAttr, c);
    }

    @Override
    public void close() {
        for (NativeBuffer b : new NativeBuffer[] {counts, packedOut, packedIn, replyOut, replyIn, staging, sendStaging}) b.close();
        early.close();
        rest.close();
    }
}
