package org.lpf4j.engine.threads.group;

import org.lpf4j.MsgAttr;
import org.lpf4j.spi.kit.BulkCopy;
import org.lpf4j.spi.kit.RequestChecks;
import org.lpf4j.spi.kit.SlotRegister;

import java.lang.foreign.MemorySegment;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;

/**
 * One process's share of a sync in a group of threads that share memory: after the barrier that
 * published every member's queue, it <em>pulls</em> the puts addressed to it from the group's
 * outbox table and executes its own gets by reading the owners' registered memory. So every
 * write into a member's memory is made by that member's thread, in a fixed order (by source
 * member, then in queue order): a serialisation of conflicting writes. Used by the threads
 * engine for a whole section and by the hybrid engine for the processes of one node (which
 * applies the puts from other nodes between {@link #applyPuts} and {@link #applyGets}).
 *
 * <p>Contract: one instance per member, used only by that member's thread, between barriers that
 * keep the outboxes and sources it reads stable. A request that does not fit its remote area
 * throws {@link IndexOutOfBoundsException}; one whose memory was freed while registered (its
 * {@link java.lang.foreign.Arena} closed) throws {@link IllegalStateException} naming the request
 * and whose Arena it was. The engine turns either into the failure of its section.
 *
 * <p>Cost: proportional to the requests applied and their bytes (a copy or a combining
 * operator each); nothing is allocated unless a request fails.
 */
public final class PullApplier {
    private final RequestQueue.Outbox[] outboxes;
    private final int members, member, me;
    /** Member index to pid, for messages. */
    private final IntUnaryOperator pidOf;
    private final SlotRegister register;
    private final IntFunction<SlotRegister> registers;
    private final BulkCopy copier;
    private long putsIn, bytesIn;

    /**
     * @param outboxes  the group's outbox table ({@code outboxes[parity · members + member]}, as {@link QueuePair} publishes)
     * @param members   the processes of the group
     * @param member    this process's index in the group
     * @param pidOf     a member's pid, by index (names the processes in messages)
     * @param register  this process's memory register (the puts' destinations)
     * @param registers the register of each member, by index (the gets' sources); called at sync time
     * @param copier    how requests are copied ({@code lpf.copy})
     */
    public PullApplier(RequestQueue.Outbox[] outboxes, int members, int member, IntUnaryOperator pidOf,
                       SlotRegister register, IntFunction<SlotRegister> registers, BulkCopy copier) {
        this.outboxes = outboxes;
        this.members = members;
        this.member = member;
        this.pidOf = pidOf;
        this.me = pidOf.applyAsInt(member);
        this.register = register;
        this.registers = registers;
        this.copier = copier;
    }

    /**
     * Applies every put of superstep {@code superstep} that a member of the group addressed to this
     * process, by source member and in each source's queue order; counts them for {@link #putsIn}.
     *
     * @param superstep the superstep whose sync this is (its queues have parity {@code superstep & 1})
     */
    public void applyPuts(long superstep) {
        final int base = ((int) superstep & 1) * members;
        long applied = 0, bytes = 0;
        for (int s = 0; s < members; s++) {
            RequestQueue.Outbox from = outboxes[base + s];
            for (long r = from.firstAfterBarrier(member, superstep); r != RequestQueue.NONE; r = from.nextAfterBarrier(r)) {
                long size = from.sizeAfterBarrier(r);
                if (size == 0) continue;
                int slot = from.slotAfterBarrier(r);
                MemorySegment dst = register.globalSegment(slot);
                long dstOffset = from.dstOffsetAfterBarrier(r);
                if (!RequestChecks.remotePutFits(dst, dstOffset, size)) {
                    throw RequestChecks.remotePutTooFar(pidOf.applyAsInt(s), me, slot, dstOffset, size, dst);
                }
                applied++;
                bytes += size;
                MsgAttr combining = from.attrAfterBarrier(r);
                MemorySegment src = from.sourceAfterBarrier(r);
                long srcOffset = from.sourceOffsetAfterBarrier(r);
                try {
                    if (combining == null) copier.copy(src, srcOffset, dst, dstOffset, size);
                    else RequestChecks.combine(combining, src, srcOffset, dst, dstOffset, size);
                } catch (IllegalStateException e) { // a closed Arena
                    throw freed("put from pid " + pidOf.applyAsInt(s) + " to pid " + me, slot, dstOffset, size,
                            src, pidOf.applyAsInt(s), dst, me, e);
                }
            }
        }
        putsIn = applied;
        bytesIn = bytes;
    }

    /**
     * Executes this process's gets from members of the group, in the order they were made.
     *
     * @param own this process's queue of the superstep being synced
     */
    public void applyGets(RequestQueue own) {
        for (int g = 0, n = own.gets(); g < n; g++) {
            long size = own.getSize(g);
            if (size == 0) continue;
            int owner = own.getPid(g);
            int slot = own.getSlot(g);
            MemorySegment src = registers.apply(owner).globalSegment(slot);
            long srcOffset = own.getSrcOffset(g);
            if (!RequestChecks.remoteGetFits(src, srcOffset, size)) {
                throw RequestChecks.remoteGetTooFar(me, pidOf.applyAsInt(owner), slot, srcOffset, size, src);
            }
            MemorySegment dst = own.getDestination(g);
            try {
                copier.copy(src, srcOffset, dst, own.getDstOffset(g), size);
            } catch (IllegalStateException e) { // a closed Arena
                throw freed("get by pid " + me + " from pid " + pidOf.applyAsInt(owner), slot, srcOffset, size,
                        src, pidOf.applyAsInt(owner), dst, me, e);
            }
        }
    }

    /** @return puts of non-zero size applied by the last {@link #applyPuts} */
    public long putsIn() { return putsIn; }

    /** @return their bytes */
    public long bytesIn() { return bytesIn; }

    /**
     * A request whose memory was freed (its Arena closed) while registered: the report names the
     * request and whose memory it was, not just the JDK's "Already closed".
     */
    private static IllegalStateException freed(String request, int slot, long offset, long size, MemorySegment src,
                                                int srcPid, MemorySegment dst, int dstPid, IllegalStateException e) {
        String whose = !dst.scope().isAlive() ? "pid " + dstPid + " closed the Arena of its destination memory"
                : !src.scope().isAlive() ? "pid " + srcPid + " closed the Arena of its source memory"
                : "its memory is not accessible";
        return new IllegalStateException(request + " global#" + slot + " (remote offset=" + offset + ", size=" + size
                + "): " + whose + " before deregistering it (" + e.getMessage() + ")", e);
    }
}
