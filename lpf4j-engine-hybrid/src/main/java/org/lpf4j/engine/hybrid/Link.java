package org.lpf4j.engine.hybrid;

import org.lpf4j.Context;
import org.lpf4j.engine.mpi.Mpi;
import org.lpf4j.engine.mpi.MpiEngine;
import org.lpf4j.engine.mpi.NativeBuffer;
import org.lpf4j.engine.mpi.RequestArray;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.RequestChecks;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * What a node's leader does in a sync, between the node-local barriers: the node's round with the
 * other nodes. Used only by the leader's thread (MPI is called from that thread only).
 *
 * <ol>
 *   <li>The node-level context's {@code sync} (an MPI-engine section whose processes are the
 *       nodes), through {@link MpiEngine#syncCarrying}: its one {@code MPI_Allreduce} also carries
 *       every node's packed size for every other node (n × (n − 1) words, up to
 *       {@link HybridSettings#sizesInAllreduceUpTo} nodes, 16 by default; beyond, a "some node sends" word, and an
 *       {@code MPI_Alltoall} of the sizes follows when it is set). <b>An empty superstep costs that
 *       one allreduce.</b> That sync is also where a node that ended (returned, threw, lost a
 *       process) is noticed: it throws {@link org.lpf4j.FatalException}, and the MPI engine's end
 *       round carries who failed and why to pid 0.</li>
 *   <li>If this node sends or receives: one packed message per destination node on a
 *       communicator of the link's own ({@code MPI_Isend}/{@code MPI_Irecv}), every header and put
 *       payload of every local process for that node together; then the gets addressed to this
 *       node are served from local memory (before any process writes in this sync) and one reply
 *       message per requesting node is sent.</li>
 * </ol>
 * So a superstep with data costs one allreduce and, per node pair, one packed message and (with
 * gets) one reply: not one per thread pair. Measured, 2 nodes × 2 threads on 2 cores (medians of
 * 3 or 7 rounds of the hybrid {@code BenchTest}): the sizes as 8-byte puts through the MPI engine's
 * own exchange cost a message round more (8-byte put + sync 22.7 µs), a separate alltoall a
 * collective more (17.5-19.0 µs); in the allreduce it takes 15.3-15.6 µs, and an empty sync, whose
 * allreduce then carries 4 words more, 6.5-6.8 µs against 6.1-6.4. Incoming puts are left in the receive buffer, listed per destination process; each
 * process applies its own
 * ({@link #incoming}).
 */
final class Link implements AutoCloseable {
    static final int PUT = 1, GET = 2, COMBINE = 3;
    static final long HEADER = 32;
    private static final int TAG_PACKED = 41, TAG_REPLY = 42;

    private final Mpi mpi;
    private final Context nodes;
    private final long comm;
    private final int me, n;
    private final Arena arena = Arena.ofShared();
    /** Whether this link's sizes travel in the allreduce ({@link HybridSettings#sizesInAllreduceUpTo}). */
    private final boolean sizesInAllreduce;
    /**
     * The words carried by the node-level sync: the size matrix without its diagonal (a node sends
     * nothing to itself through MPI), row = sender, n × (n − 1) words; or the one "sends" word.
     * Without the diagonal, 2 nodes carry 2 words (24 bytes with the engine's word): measured on 2
     * cores (2 nodes × 2 threads, Open MPI), an empty sync took 6.2-6.3 µs so, and 6.5-7.0 µs with
     * the whole 2 × 2 matrix (40 bytes); why 16 bytes more cost that much is not known.
     */
    private final MemorySegment carried;
    /** Packed bytes this node sends to / receives from each node (the alltoall, when they do not travel in the allreduce). */
    private final MemorySegment countsIn, countsOut;
    private final NativeBuffer packedOut = new NativeBuffer(), packedIn = new NativeBuffer(),
            replyOut = new NativeBuffer(), replyIn = new NativeBuffer();
    private final RequestArray early, rest;
    private final long[] outBytes, outAt, inBytes, inAt, replyInBytes, replyInAt, replyOutBytes, replyOutAt, cursor;
    private Node local;
    /** Per local process: offsets in the receive buffer of the puts addressed to it, in apply order. */
    private long[][] incoming;
    /** Per local process: the attribute of each incoming put, null for a plain one. */
    private org.lpf4j.MsgAttr[][] incomingAttr;
    /** Combining attributes this leader has sent, serialized once each (the leader's thread only). */
    private final java.util.IdentityHashMap<org.lpf4j.MsgAttr, byte[]> sentAttrs = new java.util.IdentityHashMap<>();
    /** Combining attributes received, by their serialized form (few: libraries reuse their attributes). */
    private final CrossJvmObjects objects;
    private final java.util.List<byte[]> receivedKeys = new java.util.ArrayList<>();
    private final java.util.List<org.lpf4j.MsgAttr> receivedAttrs = new java.util.ArrayList<>();
    private int[] incomingCount;

    /**
     * Collective over the nodes (one {@code MPI_Comm_dup}).
     *
     * @param nodes    the node-level context (an MPI-engine section, pid = node)
     * @param settings where {@link HybridSettings#sizesInAllreduceUpTo} comes from
     */
    /**
     * @param objects how operators shipped by other nodes find their classes (captured once per section)
     */
    Link(Mpi mpi, Context nodes, HybridSettings settings, CrossJvmObjects objects) {
        this.mpi = mpi;
        this.objects = objects;
        this.anyThread = mpi.queryThread() >= Mpi.THREAD_SERIALIZED;
        this.nodes = nodes;
        this.me = nodes.pid();
        this.n = nodes.nprocs();
        this.comm = mpi.dup(MpiEngine.communicator(nodes));
        mpi.setErrorsReturn(comm);
        this.sizesInAllreduce = n <= settings.sizesInAllreduceUpTo();
        carried = arena.allocate(sizesInAllreduce ? 8L * n * (n - 1) : 8, 8);
        MpiEngine.carryWords(nodes, (int) (carried.byteSize() / 8));
        countsIn = arena.allocate(8L * n, 8);
        countsOut = arena.allocate(8L * n, 8);
        early = new RequestArray(mpi, n);
        rest = new RequestArray(mpi, 2 * n);
        outBytes = new long[n]; outAt = new long[n]; inBytes = new long[n]; inAt = new long[n];
        replyInBytes = new long[n]; replyInAt = new long[n]; replyOutBytes = new long[n]; replyOutAt = new long[n];
        cursor = new long[n];
    }

    /** Whether MPI lets any thread of the node call it, one at a time ({@code MPI_THREAD_SERIALIZED} or more). */
    private final boolean anyThread;

    /** @return whether any local process may do the round (MPI granted {@code MPI_THREAD_SERIALIZED} or more), not only local process 0 */
    boolean anyThreadMayRound() { return anyThread; }

    /** @return the node-level context (an MPI-engine section, pid = node) */
    Context nodes() { return nodes; }

    /**
     * Collective over the nodes: fails (on every node alike) if two of them run on the same host,
     * naming the host and the nodes; the hybrid engine runs one JVM per node
     * ({@code lpf.engine.hybrid.nodes=rank} lifts the check for tests on one machine).
     */
    void checkOneRankPerHost() {
        final int width = 256;
        String host = HostName.of();
        byte[] own = host.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int len = Math.min(own.length, width - 4);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate((long) width * n), in = a.allocate((long) width * n);
            for (int q = 0; q < n; q++) {
                out.set(JAVA_INT_UNALIGNED, (long) width * q, len);
                MemorySegment.copy(MemorySegment.ofArray(own), 0, out, (long) width * q + 4, len);
            }
            mpi.alltoallBytes(out, in, width, comm);
            java.util.Map<String, java.util.List<Integer>> byHost = new java.util.TreeMap<>();
            for (int q = 0; q < n; q++) {
                int k = in.get(JAVA_INT_UNALIGNED, (long) width * q);
                String h = new String(in.asSlice((long) width * q + 4, k).toArray(ValueLayout.JAVA_BYTE),
                        java.nio.charset.StandardCharsets.UTF_8);
                byHost.computeIfAbsent(h, x -> new java.util.ArrayList<>()).add(q);
            }
            for (var e : byHost.entrySet()) {
                if (e.getValue().size() > 1) {
                    throw new IllegalStateException("hybrid engine: MPI ranks " + e.getValue() + " all run on host " + e.getKey()
                            + "; this engine runs one JVM per node with threads inside (launch with mpirun --map-by ppr:1:node,"
                            + " or lpf run --engine hybrid --nodes N), or set lpf.engine.hybrid.nodes=rank to make every rank"
                            + " a node of its own (N JVMs on one machine standing for N nodes)");
                }
            }
        }
    }

    /** Binds the link to the node whose leader uses it (once, before any round). */
    void bind(Node node) {
        this.local = node;
        this.incoming = new long[node.t][16];
        this.incomingAttr = new org.lpf4j.MsgAttr[node.t][16];
        this.incomingCount = new int[node.t];
    }

    private static long pad(long size) { return (size + 7) & ~7L; }

    /** @return how many puts from other nodes local process {@code local} has to apply this superstep */
    int incomingCount(int l) { return incomingCount[l]; }

    /** @return the offset in {@link #received()} of local process {@code l}'s {@code i}-th incoming put's header */
    long incoming(int l, int i) { return incoming[l][i]; }

    /** @return the attribute of local process {@code l}'s {@code i}-th incoming put, null for a plain copy */
    org.lpf4j.MsgAttr incomingAttr(int l, int i) { return incomingAttr[l][i]; }

    /** @return where the payload of the put whose header is at {@code h} starts */
    static long payloadAt(MemorySegment buf, long h) {
        return buf.get(JAVA_INT_UNALIGNED, h) == COMBINE ? h + HEADER + 8 + pad(buf.get(JAVA_LONG_UNALIGNED, h + HEADER)) : h + HEADER;
    }

    /** @return the bytes a put takes in a packed stream */
    private long putBytes(org.lpf4j.MsgAttr attr, long size) {
        return HEADER + pad(size) + (attr == null ? 0 : 8 + pad(serialized(attr).length));
    }

    /** @return the attribute's element size and operator, serialized (once per attribute object) */
    private byte[] serialized(org.lpf4j.MsgAttr attr) {
        byte[] b = sentAttrs.get(attr);
        if (b != null) return b;
        try (java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
             java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeLong(attr.elementSize());
            out.writeObject(attr.combiner());
            out.flush();
            b = bytes.toByteArray();
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("combining put to another node: cannot serialize its operator "
                    + attr.combiner() + ": " + e, e);
        }
        sentAttrs.put(attr, b);
        return b;
    }

    /** @return the attribute serialized at {@code [at, at + n)} of {@code in}, deserialized once per distinct form */
    private org.lpf4j.MsgAttr received(MemorySegment in, long at, int n) {
        for (int i = 0; i < receivedKeys.size(); i++) {
            byte[] k = receivedKeys.get(i);
            if (k.length == n && MemorySegment.mismatch(in, at, at + n, MemorySegment.ofArray(k), 0, n) == -1) {
                return receivedAttrs.get(i);
            }
        }
        byte[] k = in.asSlice(at, n).toArray(ValueLayout.JAVA_BYTE);
        try (java.io.ObjectInputStream o = objects.input(new java.io.ByteArrayInputStream(k))) {
            long elementSize = o.readLong();
            org.lpf4j.MsgAttr attr = org.lpf4j.MsgAttr.combining(elementSize, (org.lpf4j.MsgAttr.ElementCombiner) o.readObject());
            receivedKeys.add(k);
            receivedAttrs.add(attr);
            return attr;
        } catch (java.io.IOException | ClassNotFoundException e) {
            throw new IllegalStateException("node " + me + " could not read the operator of a combining put from another node"
                    + " (is the class path the same on every node?): " + e, e);
        }
    }

    /** @return how this link's section resolves classes from other nodes (a rehook's link shares it) */
    CrossJvmObjects objects() { return objects; }

    /** @return the buffer the incoming puts are in (valid until the next round) */
    MemorySegment received() { return packedIn.atLeast(0); }

    /** @return the buffer the replies to this node's gets are in */
    MemorySegment replies() { return replyIn.atLeast(0); }

    /**
     * The node's round (see the class comment), by the leader or by whichever local process the
     * barrier lets do it (all have arrived, so their requests are published). Throws {@link org.lpf4j.FatalException} when
     * another node has ended.
     *
     * @return whether any local process has puts from other nodes or replies to apply
     */
    boolean round() {
        Arrays.fill(incomingCount, 0);
        Arrays.fill(outBytes, 0);
        Arrays.fill(replyInBytes, 0);
        HybridContext[] members = local.members;
        for (HybridContext c : members) {
            RequestList r = c.remote;
            for (int i = 0; i < r.puts; i++) outBytes[local.layout.nodeOf(r.putPid[i])] += putBytes(r.putAttr[i], r.putSize[i]);
            for (int i = 0; i < r.gets; i++) {
                int d = local.layout.nodeOf(r.getPid[i]);
                outBytes[d] += HEADER;
                replyInBytes[d] += pad(r.getSize[i]);
            }
        }
        if (!exchangeSizes()) return false;
        long in = 0, out = 0, replies = 0;
        for (int s = 0; s < n; s++) {
            inAt[s] = in;
            in += inBytes[s];
            outAt[s] = out;
            out += outBytes[s];
            replyInAt[s] = replies;
            replies += replyInBytes[s];
        }
        MemorySegment inBuf = packedIn.atLeast(in), outBuf = packedOut.atLeast(out), replyBuf = replyIn.atLeast(replies);
        for (int s = 0; s < n; s++) {
            if (inBytes[s] > 0) early.irecv(inBuf, inAt[s], inBytes[s], s, TAG_PACKED, comm);
            if (replyInBytes[s] > 0) rest.irecv(replyBuf, replyInAt[s], replyInBytes[s], s, TAG_REPLY, comm);
        }
        pack(members, outBuf);
        for (int d = 0; d < n; d++) if (outBytes[d] > 0) rest.isend(outBuf, outAt[d], outBytes[d], d, TAG_PACKED, comm);
        early.waitAll();
        serve(inBuf);
        rest.waitAll();
        boolean work = false;
        for (int l = 0; l < local.t; l++) work |= incomingCount[l] > 0 || members[l].remote.gets > 0;
        return work;
    }

    /**
     * The node-level sync, and with it (or after it) the packed sizes: fills {@link #inBytes}.
     *
     * @return whether this node sends or receives anything
     */
    private boolean exchangeSizes() {
        boolean sends = false;
        for (int d = 0; d < n; d++) sends |= outBytes[d] > 0;
        if (sizesInAllreduce) {
            carried.fill((byte) 0);
            for (int d = 0; d < n; d++) if (d != me) carried.setAtIndex(ValueLayout.JAVA_LONG, sizeIndex(me, d), outBytes[d]);
            MpiEngine.syncCarrying(nodes, carried);
            boolean receives = false;
            for (int s = 0; s < n; s++) {
                inBytes[s] = s == me ? 0 : carried.getAtIndex(ValueLayout.JAVA_LONG, sizeIndex(s, me));
                receives |= inBytes[s] > 0;
            }
            return sends || receives;
        }
        carried.set(ValueLayout.JAVA_LONG, 0, sends ? 1 : 0);
        MpiEngine.syncCarrying(nodes, carried);
        if (carried.get(ValueLayout.JAVA_LONG, 0) == 0) return false;
        for (int d = 0; d < n; d++) countsOut.setAtIndex(ValueLayout.JAVA_LONG, d, outBytes[d]);
        mpi.alltoallBytes(countsOut, countsIn, 8, comm);
        for (int s = 0; s < n; s++) inBytes[s] = countsIn.getAtIndex(ValueLayout.JAVA_LONG, s);
        return true;
    }

    /** @return the index of "sender {@code s} to node {@code d}" ({@code s != d}) in the carried size matrix */
    private long sizeIndex(int s, int d) { return (long) s * (n - 1) + (d < s ? d : d - 1); }

    /** Packs every local process's remote requests, by destination node; records where each get's reply lands. */
    private void pack(HybridContext[] members, MemorySegment out) {
        System.arraycopy(outAt, 0, cursor, 0, n);
        long[] replyCursor = replyOutAt; // scratch until serve()
        System.arraycopy(replyInAt, 0, replyCursor, 0, n);
        for (HybridContext c : members) {
            RequestList r = c.remote;
            for (int i = 0; i < r.puts; i++) {
                int d = local.layout.nodeOf(r.putPid[i]);
                long h = cursor[d], size = r.putSize[i], at = h + HEADER;
                org.lpf4j.MsgAttr attr = r.putAttr[i];
                header(out, h, attr == null ? PUT : COMBINE, r.putPid[i], r.putSlot[i], r.putDstOffset[i], size);
                if (attr != null) {
                    byte[] form = serialized(attr);
                    out.set(JAVA_LONG_UNALIGNED, at, form.length);
                    MemorySegment.copy(MemorySegment.ofArray(form), 0, out, at + 8, form.length);
                    at += 8 + pad(form.length);
                }
                MemorySegment.copy(r.putSource[i], r.putSrcOffset[i], out, at, size);
                cursor[d] = at + pad(size);
            }
            for (int i = 0; i < r.gets; i++) {
                int d = local.layout.nodeOf(r.getPid[i]);
                long h = cursor[d], size = r.getSize[i];
                header(out, h, GET, r.getPid[i], r.getSlot[i], r.getSrcOffset[i], size);
                cursor[d] = h + HEADER;
                r.getTag[i] = replyCursor[d]; // where the reply will land
                replyCursor[d] += pad(size);
            }
        }
    }

    private static void header(MemorySegment out, long h, int kind, int pid, int slot, long offset, long size) {
        out.set(JAVA_INT_UNALIGNED, h, kind);
        out.set(JAVA_INT_UNALIGNED, h + 4, pid);
        out.set(JAVA_INT_UNALIGNED, h + 8, slot);
        out.set(JAVA_INT_UNALIGNED, h + 12, 0);
        out.set(JAVA_LONG_UNALIGNED, h + 16, offset);
        out.set(JAVA_LONG_UNALIGNED, h + 24, size);
    }

    static int pid(MemorySegment buf, long h) { return buf.get(JAVA_INT_UNALIGNED, h + 4); }

    static int slot(MemorySegment buf, long h) { return buf.get(JAVA_INT_UNALIGNED, h + 8); }

    static long offset(MemorySegment buf, long h) { return buf.get(JAVA_LONG_UNALIGNED, h + 16); }

    static long size(MemorySegment buf, long h) { return buf.get(JAVA_LONG_UNALIGNED, h + 24); }

    /**
     * Lists incoming puts per destination process and serves incoming gets from local memory
     * (every process of this node waits in the sync, so nobody writes meanwhile). A get that names
     * memory the owner did not register gets zeros and fails this node (the owner's pid is named).
     */
    private void serve(MemorySegment in) {
        long total = 0;
        for (int s = 0; s < n; s++) {
            replyOutBytes[s] = 0;
            for (long h = inAt[s], end = h + inBytes[s]; h < end; ) {
                long size = size(in, h);
                if (in.get(JAVA_INT_UNALIGNED, h) == GET) {
                    replyOutBytes[s] += pad(size);
                    h += HEADER;
                } else {
                    h = payloadAt(in, h) + pad(size);
                }
            }
            replyOutAt[s] = total;
            total += replyOutBytes[s];
        }
        MemorySegment replies = replyOut.atLeast(total);
        for (int s = 0; s < n; s++) {
            long reply = replyOutAt[s];
            for (long h = inAt[s], end = h + inBytes[s]; h < end; ) {
                int pid = pid(in, h), l = pid - local.base;
                long size = size(in, h);
                int kind = in.get(JAVA_INT_UNALIGNED, h);
                if (kind != GET) {
                    addIncoming(l, h, kind == COMBINE ? received(in, h + HEADER + 8, (int) in.get(JAVA_LONG_UNALIGNED, h + HEADER)) : null);
                    h = payloadAt(in, h) + pad(size);
                    continue;
                }
                h += HEADER;
                if (size == 0) continue;
                int slot = slot(in, h - HEADER);
                long offset = offset(in, h - HEADER);
                SlotRegister register = local.members[l].register;
                MemorySegment src = register.globalSegment(slot);
                if (!RequestChecks.remoteGetFits(src, offset, size)) {
                    replies.asSlice(reply, size).fill((byte) 0);
                    local.fail(RequestChecks.remoteGetTooFar("a process of node " + s, pid, slot, offset, size, src).getMessage(), null);
                } else {
                    MemorySegment.copy(src, offset, replies, reply, size);
                }
                reply += pad(size);
            }
            if (replyOutBytes[s] > 0) rest.isend(replies, replyOutAt[s], replyOutBytes[s], s, TAG_REPLY, comm);
        }
    }

    private void addIncoming(int l, long h, org.lpf4j.MsgAttr attr) {
        int k = incomingCount[l]++;
        if (k == incoming[l].length) {
            incoming[l] = Arrays.copyOf(incoming[l], 2 * k);
            incomingAttr[l] = Arrays.copyOf(incomingAttr[l], 2 * k);
        }
        incoming[l][k] = h;
        incomingAttr[l][k] = attr;
    }

    @Override
    public void close() {
        for (NativeBuffer b : new NativeBuffer[] {packedOut, packedIn, replyOut, replyIn}) b.close();
        early.close();
        rest.close();
        mpi.free(comm);
        arena.close();
    }
}
