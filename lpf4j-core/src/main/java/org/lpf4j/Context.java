package org.lpf4j;

import java.lang.foreign.MemorySegment;

/**
 * One process's view of an LPF SPMD section (the C API's {@code lpf_t}), or the root context of
 * the machine ({@link Lpf#root()}, {@code LPF_ROOT}): a one-process context on which every
 * primitive works.
 *
 * <h2>Supersteps</h2>
 * {@link #put put} and {@link #get get} only record a request; the next {@link #sync()} executes
 * every request of every process and ends the superstep. Overlapping writes to one destination
 * end as some serialisation of the requests (never a mix of bytes). Registered memory named by a
 * pending request must not be touched by plain code until that sync returns.
 *
 * <h2>Memory model</h2>
 * A sync is a happens-before edge between all processes: plain (non-volatile) writes a process
 * made before calling {@code sync} are visible to the copies done in that sync, and plain reads
 * after {@code sync} returns see every byte that sync delivered. No volatile access or fence is
 * needed in user code.
 *
 * <h2>Capacities</h2>
 * A fresh context has room for no registration and no request:
 * {@link #resizeMemoryRegister(long)} and {@link #resizeMessageQueue(long)} followed by a
 * {@code sync} reserve it. Exceeding a capacity is an {@link IllegalStateException}.
 *
 * <h2>Errors</h2>
 * Bad arguments that can be checked locally (pid out of range, negative offset or size, an area
 * past the registered one, an unknown, deregistered or foreign slot, a local slot named as a
 * remote one) throw an exception naming the call, the pid and the values, and leave the state as
 * it was. A failed section throws {@link FatalException} from {@code sync}.
 *
 * <h2>Threads</h2>
 * A context is used by one thread at a time. Usually that is the thread that runs its process,
 * but any thread may drive it (a benchmark harness, say) provided two threads never use it at
 * once and the hand-over between them is a happens-before edge.
 *
 * <h2>Cost</h2>
 * Each method states its cost. Communication costs follow BSP: a superstep in which the busiest
 * process sends or receives h bytes costs {@code l + g·h} (see {@link Machine}).
 */
public interface Context {

    /** @return this process's id, 0 ≤ pid &lt; {@link #nprocs()}; O(1) */
    int pid();

    /** @return the number of processes of this section; O(1) */
    int nprocs();

    /** @return the arguments of this process (see {@link Args} for who gets what); O(1) */
    Args args();

    /**
     * Starts an SPMD section of {@code p} processes and waits for it to end ({@code lpf_exec}).
     * {@code exec(Lpf.MAX_P, ...)} asks for the whole machine: the section gets
     * {@link Machine#freeP() probe().freeP()} processes. For any other {@code p} the engine grants
     * {@code p} if it can, else fewer (at least 1): the program reads the count it got from
     * {@link #nprocs()}. A count below {@code p} is never silent: the engine logs a warning
     * (once per JVM, {@link System.Logger} level WARNING) naming the parameter that raises it.
     * What the engines grant: the threads engine's root grants any explicit {@code p} up to
     * {@code lpf.engine.threads.maxProcs} (default 512; processes are threads, so more than the
     * cores run oversubscribed), a nested {@code exec} there gets at most the processors assigned
     * to the calling process; a cluster engine grants at most the processes it was launched with.
     * May be called inside an SPMD section (nested). Process 0 gets {@code args}' input and
     * output, the others only its symbols.
     *
     * <p>Cost: starting and ending {@code p} processes (threads, for an in-process engine), plus the section.
     *
     * @param p    the number of processes asked for, ≥ 1
     * @param spmd the function every process runs
     * @param args input and output of process 0, symbols for all
     * @throws IllegalArgumentException if {@code p < 1}
     * @throws FatalException           if the section failed (carrying the cause), or this context
     *                                  is already in the failure state
     * @throws LpfOutOfMemoryException  if the section could not be started; nothing is left over
     */
    void exec(int p, Spmd spmd, Args args);

    /**
     * {@link #exec(int, Spmd, Args)} without arguments; same cost.
     *
     * @param p    the number of processes asked for, ≥ 1
     * @param spmd the function every process runs
     */
    default void exec(int p, Spmd spmd) { exec(p, spmd, Args.NONE); }

    /**
     * Runs {@code spmd} in a fresh context over the same processes ({@code lpf_rehook}): no slots,
     * no queue, independent of this one. Collective: every process of this section calls it.
     * Each process passes its own {@code args}.
     *
     * <p>Cost: starting and ending a process per member (a thread, for an in-process engine),
     * plus the section.
     *
     * @param spmd the function every process runs
     * @param args this process's arguments
     * @throws FatalException if the inner section failed; this context is then failed too
     */
    void rehook(Spmd spmd, Args args);

    /**
     * Registers {@code segment} for remote access ({@code lpf_register_global}). Collective: every
     * process registers its own area in the same superstep and order. The slot may be used from
     * the next {@link #sync()} on; its id is the same on every process whatever local
     * registrations each makes. Consumes one register entry at once.
     *
     * <p>Cost: O(1), allocation-free.
     *
     * @param segment memory readable and writable by every thread of the engine (heap, shared,
     *                global or automatic arenas; not a confined arena); may be empty
     * @return the slot
     * @throws IllegalStateException    if the memory register is full
     * @throws IllegalArgumentException if the segment cannot be accessed by the engine
     */
    Memslot registerGlobal(MemorySegment segment);

    /**
     * Registers {@code segment} for use by this process only ({@code lpf_register_local}); usable
     * at once as a local source or destination. Consumes one register entry.
     *
     * <p>Cost: O(1), allocation-free.
     *
     * @param segment memory as for {@link #registerGlobal}
     * @return the slot
     * @throws IllegalStateException if the memory register is full
     */
    Memslot registerLocal(MemorySegment segment);

    /**
     * Deregisters a slot and returns its register entry ({@code lpf_deregister}); immediate.
     * Collective, in the same order on every process, for global slots. No request of the current
     * superstep may name the slot.
     *
     * <p>Cost: O(1), allocation-free.
     *
     * @param slot a slot of this context
     * @throws IllegalArgumentException if the slot is unknown, already deregistered or foreign
     */
    void deregister(Memslot slot);

    /**
     * Queues a copy of {@code size} bytes from the local {@code srcSlot} at {@code srcOffset} to
     * {@code dstSlot} at {@code dstOffset} on {@code dstPid}, executed by the next sync
     * ({@code lpf_put}). Takes one message-queue entry. Allocates nothing.
     *
     * <p>Cost: O(1) and allocation-free; one queue entry. An engine may copy the payload when
     * called (an engine may copy small puts into its queue at once; do not rely on reusing the
     * source early: it is an engine's optimisation, not a rule), which costs
     * O(size) then instead of during the sync.
     *
     * @param srcSlot   a local or global slot of this process
     * @param srcOffset byte offset in the source area
     * @param dstPid    destination process
     * @param dstSlot   a global slot
     * @param dstOffset byte offset in the destination's area
     * @param size      bytes to copy (may be 0)
     * @param attr      message attributes
     */
    void put(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset, long size, MsgAttr attr);

    /**
     * {@link #put(Memslot, long, int, Memslot, long, long, MsgAttr)} with {@link MsgAttr#DEFAULT}.
     *
     * @param srcSlot   a local or global slot of this process
     * @param srcOffset byte offset in the source area
     * @param dstPid    destination process
     * @param dstSlot   a global slot
     * @param dstOffset byte offset in the destination's area
     * @param size      bytes to copy (may be 0)
     */
    default void put(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset, long size) {
        put(srcSlot, srcOffset, dstPid, dstSlot, dstOffset, size, MsgAttr.DEFAULT);
    }

    /**
     * Queues a copy of {@code size} bytes from {@code srcSlot} at {@code srcOffset} on
     * {@code srcPid} into the local {@code dstSlot} at {@code dstOffset}, executed by the next sync
     * ({@code lpf_get}). Takes one message-queue entry. Allocates nothing.
     *
     * <p>Cost: O(1) and allocation-free; one queue entry. The bytes move during the sync.
     *
     * @param srcPid    source process
     * @param srcSlot   a global slot
     * @param srcOffset byte offset in the source's area
     * @param dstSlot   a local or global slot of this process
     * @param dstOffset byte offset in the destination area
     * @param size      bytes to copy (may be 0)
     * @param attr      message attributes
     */
    void get(int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset, long size, MsgAttr attr);

    /**
     * {@link #get(int, Memslot, long, Memslot, long, long, MsgAttr)} with {@link MsgAttr#DEFAULT}.
     *
     * @param srcPid    source process
     * @param srcSlot   a global slot
     * @param srcOffset byte offset in the source's area
     * @param dstSlot   a local or global slot of this process
     * @param dstOffset byte offset in the destination area
     * @param size      bytes to copy (may be 0)
     */
    default void get(int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset, long size) {
        get(srcPid, srcSlot, srcOffset, dstSlot, dstOffset, size, MsgAttr.DEFAULT);
    }

    /**
     * Ends the superstep ({@code lpf_sync}): executes every queued request of every process, then
     * activates pending global registrations and resized capacities. Allocates nothing.
     *
     * <p>Cost: the BSP cost {@code l + g·h} of the superstep, h being the most bytes any process
     * sends or receives in it; an engine documents its own constants (e.g. how many barriers an
     * empty superstep or one of small puts costs) in its module.
     *
     * @param attr synchronisation hints
     * @throws FatalException if the section is in the failure state (another process returned
     *                        early or threw, or a request could not be executed)
     */
    void sync(SyncAttr attr);

    /**
     * The number of syncs this process has completed in this context: 0 in the first superstep.
     * An extension of the LPF API, so that libraries on the public API (collectives, BSMP) can
     * notice superstep boundaries without queuing anything or reading memory a pending request
     * may write. Equal on all processes of a section at the same point of the program.
     *
     * <p>Cost: O(1), no allocation.
     *
     * @return the completed syncs
     */
    long superstep();

    /** {@link #sync(SyncAttr)} with {@link SyncAttr#DEFAULT}; same cost. */
    default void sync() { sync(SyncAttr.DEFAULT); }

    /**
     * Whether this context provides an extension of the core API (e.g.
     * {@link Capability#COMBINING_PUTS}). O(1); the same answer on every process of the context
     * and for the life of the context. Decorators forward it.
     *
     * @param capability an extension
     * @return whether it is supported; the default (an engine that declares nothing) is false
     */
    default boolean supports(Capability capability) { return false; }

    /**
     * Describes the machine of this context ({@code lpf_probe}).
     *
     * <p>The result is <em>identical on every process</em> of the context: libraries choose
     * algorithms from it, and all processes must choose the same. (Engines measure with one clock,
     * pid 0's, and send its figures to every process.) An engine whose processes are grouped
     * in nodes also reports the node layout and each level's figures
     * ({@link Machine#levels()}); the others report none.
     *
     * <p>Cost: the first call for a given number of processes measures g and l by timing
     * h-relations over that many processes, bounded by the engine's probe budget (an engine
     * parameter; see {@code lpf info}); it allocates a few MiB per process for the measurement.
     * An engine whose sections run in one JVM (threads) first reads the figures from the probe
     * cache on disk, where {@code lpf probe} or an earlier program left them
     * ({@code lpf.probe.cache}, {@code lpf.probe.cacheDir}): then the first call costs a small
     * file read. Later calls for the same number of processes return the stored result in O(1).
     *
     * @return the machine parameters
     */
    Machine probe();

    /**
     * Sets the number of registrations this process may hold ({@code lpf_resize_memory_register}),
     * effective after the next sync; until then the old capacity holds (also when shrinking).
     *
     * <p>Cost: Θ(maxRegs) time and allocation when it grows the register (engines allocate at the
     * call, so the sync that activates it cannot run out of memory).
     *
     * @param maxRegs the new capacity, ≥ 0
     * @throws LpfOutOfMemoryException if the memory cannot be had; the call then had no effect
     * @throws IllegalArgumentException if {@code maxRegs < 0}
     */
    void resizeMemoryRegister(long maxRegs);

    /**
     * Sets the number of requests this process may queue in one superstep
     * ({@code lpf_resize_message_queue}), effective after the next sync; until then the old
     * capacity holds (also when shrinking).
     *
     * <p>Cost: Θ(maxMsgs) time and allocation when it grows the queue (engines allocate at the
     * call, so the sync that activates it cannot run out of memory).
     *
     * @param maxMsgs the new capacity, ≥ 0
     * @throws LpfOutOfMemoryException if the memory cannot be had; the call then had no effect
     * @throws IllegalArgumentException if {@code maxMsgs < 0}
     */
    void resizeMessageQueue(long maxMsgs);
}
