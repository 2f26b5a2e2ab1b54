package org.lpf4j.spi.kit;

import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;

import java.lang.foreign.MemorySegment;

/**
 * For engines and decorators only: the argument rules of {@code put} and {@code get} and their
 * messages, in one place. Engines call {@link #checkPut} / {@link #checkGet} on every request
 * (a few compares on the fast path, inlined; the message is built only when a rule is broken);
 * the debug layer calls {@link #putViolation} / {@link #getViolation} and reports the
 * {@link Violation} with its own tag. What only the target can check (the remote area's bounds,
 * its activation there) is checked by the engine at the sync.
 *
 * <p>The rules, in the order they are reported: the remote pid in {@code [0, nprocs)}; size and
 * offsets not negative; the local slot usable now (registered by this context, not deregistered,
 * a global one only from the sync after its registration); the local area inside the registered
 * bytes; a get's destination writable; the remote slot global and usable now; the attribute
 * {@link MsgAttr#DEFAULT} or, for a put, a combining one of whole elements; and a free entry in
 * the message queue.
 */
public final class RequestChecks {
    private RequestChecks() {}

    /** What kind of rule a request broke. */
    public enum Kind {
        /** the remote pid is not in [0, nprocs) */
        BAD_PID,
        /** a negative size or offset, a read-only destination, or an unsupported attribute */
        BAD_ARGUMENT,
        /** the local slot or remote slot cannot be used (null, foreign, deregistered) */
        BAD_SLOT,
        /** a global slot used before the sync that activates it */
        INACTIVE_SLOT,
        /** a local slot named as the remote end */
        LOCAL_SLOT_AS_REMOTE,
        /** the local area exceeds the registered bytes */
        OUT_OF_BOUNDS,
        /** the message queue is full */
        QUEUE_FULL
    }

    /**
     * A broken rule.
     *
     * @param kind     which rule
     * @param problem  the message's explanation, e.g. "negative size"
     * @param offset   for {@link Kind#OUT_OF_BOUNDS}: the local offset, else 0
     * @param size     for {@link Kind#OUT_OF_BOUNDS}: the size, else 0
     * @param registered for {@link Kind#OUT_OF_BOUNDS}: the registered bytes, else 0
     */
    public record Violation(Kind kind, String problem, long offset, long size, long registered) {
        Violation(Kind kind, String problem) { this(kind, problem, 0, 0, 0); }

        /** @return the exception an engine throws: {@code call + problem}, of the type the API documents */
        public RuntimeException exception(String call) {
            String m = call + problem;
            return switch (kind) {
                case BAD_PID, OUT_OF_BOUNDS -> new IndexOutOfBoundsException(m);
                case QUEUE_FULL -> new IllegalStateException(m);
                default -> new IllegalArgumentException(m);
            };
        }
    }

    /**
     * The put rules, fast: the read-only source area when every rule holds, else the
     * exception of the first broken one (nothing queued).
     *
     * @param queued the requests queued in this superstep so far
     * @param queueCapacity the message queue's current capacity
     * @param combining whether the engine supports {@link org.lpf4j.Capability#COMBINING_PUTS}
     */
    public static MemorySegment checkPut(SlotRegister reg, long superstep, int pid, int nprocs,
                                         Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset,
                                         long size, MsgAttr attr, int queued, int queueCapacity, boolean combining) {
        MemorySegment src = reg.localArea(srcSlot, superstep, true);
        if (src == null || dstPid < 0 || dstPid >= nprocs || srcOffset < 0 || dstOffset < 0 || size < 0
                || srcOffset > src.byteSize() - size || !reg.isUsableGlobal(dstSlot, superstep)
                || queued >= queueCapacity || attr != MsgAttr.DEFAULT && !(combining && isValidCombining(attr, size))) {
            throw putViolation(reg, superstep, nprocs, srcSlot, srcOffset, dstPid, dstSlot, dstOffset, size, attr,
                    queued, queueCapacity, combining).exception(putCall(pid, nprocs, srcSlot, srcOffset, dstPid, dstSlot, dstOffset, size));
        }
        return src;
    }

    /** The get rules, fast: the destination area when every rule holds, else the exception of the first broken one. */
    public static MemorySegment checkGet(SlotRegister reg, long superstep, int pid, int nprocs,
                                         int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset,
                                         long size, MsgAttr attr, int queued, int queueCapacity) {
        MemorySegment dst = reg.localArea(dstSlot, superstep, false);
        if (dst == null || srcPid < 0 || srcPid >= nprocs || srcOffset < 0 || dstOffset < 0 || size < 0
                || dstOffset > dst.byteSize() - size || !reg.isUsableGlobal(srcSlot, superstep)
                || queued >= queueCapacity || attr != MsgAttr.DEFAULT || dst.isReadOnly()) {
            throw getViolation(reg, superstep, nprocs, srcPid, srcSlot, srcOffset, dstSlot, dstOffset, size, attr,
                    queued, queueCapacity).exception(getCall(pid, nprocs, srcPid, srcSlot, srcOffset, dstSlot, dstOffset, size));
        }
        return dst;
    }

    /** @return "put(srcSlot=…, …) at pid 1 of 4: ", the start of every put message */
    public static String putCall(int pid, int nprocs, Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot,
                                 long dstOffset, long size) {
        return "put(srcSlot=" + srcSlot + ", srcOffset=" + srcOffset + ", dstPid=" + dstPid + ", dstSlot="
                + dstSlot + ", dstOffset=" + dstOffset + ", size=" + size + ") at pid " + pid + " of " + nprocs + ": ";
    }

    /** @return "get(srcPid=…, …) at pid 1 of 4: ", the start of every get message */
    public static String getCall(int pid, int nprocs, int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot,
                                 long dstOffset, long size) {
        return "get(srcPid=" + srcPid + ", srcSlot=" + srcSlot + ", srcOffset=" + srcOffset + ", dstSlot="
                + dstSlot + ", dstOffset=" + dstOffset + ", size=" + size + ") at pid " + pid + " of " + nprocs + ": ";
    }

    /** @return the first put rule the arguments break, or null if they break none */
    public static Violation putViolation(SlotView view, long superstep, int nprocs, Memslot srcSlot, long srcOffset,
                                         int dstPid, Memslot dstSlot, long dstOffset, long size, MsgAttr attr,
                                         int queued, int queueCapacity, boolean combining) {
        Violation v = common(view, superstep, nprocs, "dstPid", dstPid, size, "srcOffset", srcOffset, "dstOffset",
                dstOffset, "srcSlot", srcSlot, true, "source");
        if (v != null) return v;
        v = remote(view, superstep, "dstSlot", dstSlot, "destination");
        if (v != null) return v;
        if (attr != null && attr.isCombining() && !combining) {
            return new Violation(Kind.BAD_ARGUMENT, "combining puts are not supported by this engine"
                    + " (Context.supports(Capability.COMBINING_PUTS) is false)");
        }
        if (attr != MsgAttr.DEFAULT && !isValidCombining(attr, size)) {
            return new Violation(Kind.BAD_ARGUMENT, attr != null && attr.isCombining()
                    ? "size is not a multiple of the element size " + attr.elementSize() + " of " + attr
                    : "unsupported message attribute " + attr);
        }
        return queued >= queueCapacity ? queueFull(queued, queueCapacity) : null;
    }

    /** @return the first get rule the arguments break, or null if they break none */
    public static Violation getViolation(SlotView view, long superstep, int nprocs, int srcPid, Memslot srcSlot,
                                         long srcOffset, Memslot dstSlot, long dstOffset, long size, MsgAttr attr,
                                         int queued, int queueCapacity) {
        Violation v = common(view, superstep, nprocs, "srcPid", srcPid, size, "srcOffset", srcOffset, "dstOffset",
                dstOffset, "dstSlot", dstSlot, false, "destination");
        if (v != null) return v;
        if (view.localArea(dstSlot, superstep, false).isReadOnly()) {
            return new Violation(Kind.BAD_ARGUMENT, "dstSlot is a read-only segment");
        }
        v = remote(view, superstep, "srcSlot", srcSlot, "source");
        if (v != null) return v;
        if (attr != MsgAttr.DEFAULT) {
            return new Violation(Kind.BAD_ARGUMENT, "unsupported message attribute " + attr
                    + (attr != null && attr.isCombining() ? " (combining applies to put only)" : ""));
        }
        return queued >= queueCapacity ? queueFull(queued, queueCapacity) : null;
    }

    private static Violation common(SlotView view, long superstep, int nprocs, String pidName, int remotePid, long size,
                                    String srcOffsetName, long srcOffset, String dstOffsetName, long dstOffset,
                                    String localName, Memslot localSlot, boolean localIsSource, String localRole) {
        if (remotePid < 0 || remotePid >= nprocs) return new Violation(Kind.BAD_PID, pidName + " not in [0, " + nprocs + ")");
        if (size < 0) return new Violation(Kind.BAD_ARGUMENT, "negative size");
        if (srcOffset < 0) return new Violation(Kind.BAD_ARGUMENT, "negative " + srcOffsetName);
        if (dstOffset < 0) return new Violation(Kind.BAD_ARGUMENT, "negative " + dstOffsetName);
        MemorySegment local = view.localArea(localSlot, superstep, localIsSource);
        if (local == null) return unusable(view, superstep, localName, localSlot);
        long offset = localIsSource ? srcOffset : dstOffset;
        if (offset > local.byteSize() - size) {
            return new Violation(Kind.OUT_OF_BOUNDS, localRole + " area " + area(offset, size)
                    + " exceeds the " + local.byteSize() + " registered bytes", offset, size, local.byteSize());
        }
        return null;
    }

    private static Violation remote(SlotView view, long superstep, String name, Memslot slot, String role) {
        if (view.isOwnLocal(slot)) {
            return new Violation(Kind.LOCAL_SLOT_AS_REMOTE, name + " " + slot + " is a local slot; a remote " + role
                    + " must be registered globally");
        }
        return view.isUsableGlobal(slot, superstep) ? null : unusable(view, superstep, name, slot);
    }

    private static Violation unusable(SlotView view, long superstep, String name, Memslot slot) {
        return new Violation(view.isPending(slot, superstep) ? Kind.INACTIVE_SLOT : Kind.BAD_SLOT,
                name + " " + view.describeUnusable(slot, superstep));
    }

    private static Violation queueFull(int queued, int capacity) {
        return new Violation(Kind.QUEUE_FULL, "message queue full: " + queued + " of " + capacity
                + " requests this superstep (resizeMessageQueue, then sync, to raise it)");
    }

    /**
     * The argument checks of {@code exec}.
     *
     * @throws NullPointerException     if spmd or args is null
     * @throws IllegalArgumentException if p &lt; 1
     */
    public static void checkExec(int pid, int p, org.lpf4j.Spmd spmd, org.lpf4j.Args args) {
        java.util.Objects.requireNonNull(spmd, "exec: spmd");
        java.util.Objects.requireNonNull(args, "exec: args");
        if (p < 1) throw new IllegalArgumentException("exec(p=" + p + ") at pid " + pid + ": p must be at least 1");
    }

    /**
     * The argument checks of {@code rehook}.
     *
     * @throws NullPointerException if spmd or args is null
     */
    public static void checkRehook(org.lpf4j.Spmd spmd, org.lpf4j.Args args) {
        java.util.Objects.requireNonNull(spmd, "rehook: spmd");
        java.util.Objects.requireNonNull(args, "rehook: args");
    }

    /** @return the explanation of a full memory register */
    public static String registerFull(long used, long capacity) {
        return "memory register full: " + used + " of " + capacity + " slots in use (resizeMemoryRegister, then sync, to raise it)";
    }

    /**
     * Whether a put's remote area fits the target's global slot, checked where the target's
     * register is known (at the sync). Cost: O(1).
     *
     * @param dst    the target's segment for the slot, or null if the slot is not active there
     * @param offset the remote offset
     * @param size   the size, &gt; 0
     * @return whether the put may write there
     */
    public static boolean remotePutFits(MemorySegment dst, long offset, long size) {
        return dst != null && !dst.isReadOnly() && offset <= dst.byteSize() - size;
    }

    /**
     * Whether a get's remote area fits the source's global slot (see {@link #remotePutFits}).
     *
     * @param src    the source's segment for the slot, or null if the slot is not active there
     * @param offset the remote offset
     * @param size   the size, &gt; 0
     * @return whether the get may read there
     */
    public static boolean remoteGetFits(MemorySegment src, long offset, long size) {
        return src != null && offset <= src.byteSize() - size;
    }

    /**
     * The report of a put whose remote area does not fit (every engine words it the same).
     *
     * @param from   the origin's pid
     * @param to     the target's pid
     * @param slot   the global slot id
     * @param offset the remote offset
     * @param size   the size
     * @param dst    the target's segment for the slot, or null if the slot is not active there
     * @return the exception to fail the section with
     */
    public static IndexOutOfBoundsException remotePutTooFar(int from, int to, int slot, long offset, long size, MemorySegment dst) {
        return remotePutTooFar("pid " + from, to, slot, offset, size, dst);
    }

    /**
     * {@link #remotePutTooFar(int, int, int, long, long, MemorySegment)} for an engine that knows
     * the origin only roughly at the target (e.g. "a process of node 1").
     *
     * @param from   the origin, as the message names it
     * @param to     the target's pid
     * @param slot   the global slot id
     * @param offset the remote offset
     * @param size   the size
     * @param dst    the target's segment for the slot, or null if the slot is not active there
     * @return the exception to fail the section with
     */
    public static IndexOutOfBoundsException remotePutTooFar(String from, int to, int slot, long offset, long size, MemorySegment dst) {
        return new IndexOutOfBoundsException("put from " + from + " to pid " + to + " global#" + slot
                + " " + area(offset, size) + ": "
                + (dst == null ? "slot not registered at pid " + to
                : dst.isReadOnly() && offset <= dst.byteSize() - size
                ? "pid " + to + " registered a read-only segment there"
                : "exceeds the " + dst.byteSize() + " bytes pid " + to + " registered"));
    }

    /**
     * The report of a get whose remote area does not fit (every engine words it the same).
     *
     * @param by     the requester's pid
     * @param owner  the pid that owns the source memory
     * @param slot   the global slot id
     * @param offset the remote offset
     * @param size   the size
     * @param src    the owner's segment for the slot, or null if the slot is not active there
     * @return the exception to fail the section with
     */
    public static IndexOutOfBoundsException remoteGetTooFar(int by, int owner, int slot, long offset, long size, MemorySegment src) {
        return remoteGetTooFar("pid " + by, owner, slot, offset, size, src);
    }

    /**
     * {@link #remoteGetTooFar(int, int, int, long, long, MemorySegment)} for an engine that knows
     * the requester only roughly at the owner (e.g. "a process of node 1").
     *
     * @param by     the requester, as the message names it
     * @param owner  the pid that owns the source memory
     * @param slot   the global slot id
     * @param offset the remote offset
     * @param size   the size
     * @param src    the owner's segment for the slot, or null if the slot is not active there
     * @return the exception to fail the section with
     */
    public static IndexOutOfBoundsException remoteGetTooFar(String by, int owner, int slot, long offset, long size, MemorySegment src) {
        return new IndexOutOfBoundsException("get by " + by + " from pid " + owner + " global#" + slot
                + " " + area(offset, size) + ": "
                + (src == null ? "slot not registered at pid " + owner
                : "exceeds the " + src.byteSize() + " bytes pid " + owner + " registered"));
    }

    /**
     * A byte range as the user gave it: {@code [offset, offset + size)}, or, when the end would
     * overflow a long, {@code offset=…, size=…} (never a wrapped interval).
     *
     * @param offset the first byte, ≥ 0
     * @param size   the number of bytes, ≥ 0
     * @return the range for a message
     */
    public static String area(long offset, long size) {
        long end = offset + size;
        return end < offset ? "offset=" + offset + ", size=" + size + " (the end overflows a long)"
                : "[" + offset + ", " + end + ")";
    }

    /**
     * For engines: applies a combining put of {@code size} bytes (whole elements, see
     * {@link #isValidCombining}) at its destination, {@code dst[k] = op(dst[k], src[k])}.
     * Allocates nothing beyond what the operator allocates.
     */
    public static void combine(MsgAttr attr, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset,
                               long size) {
        attr.combiner().combine(size / attr.elementSize(), src, srcOffset, dst, dstOffset);
    }

    /** @return whether {@code attr} is a combining attribute and {@code size} whole elements of it */
    public static boolean isValidCombining(MsgAttr attr, long size) {
        return attr != null && attr.isCombining() && size % attr.elementSize() == 0;
    }
}
