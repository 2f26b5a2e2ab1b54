package org.lpf4j.coll;

import org.lpf4j.Capability;
import org.lpf4j.Capacity;
import org.lpf4j.Context;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Machine;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The LPF collectives library (the C API's {@code lpf_coll_t}): broadcast, gather, scatter,
 * allgather, alltoall, reduce, allreduce, combine and allcombine over the processes of a
 * {@link Context}, or over a strided subset of them, with the data placement of the LPF
 * collectives specification; and, as MPI has them, {@link #allgatherv} and {@link #alltoallv},
 * whose blocks have a size of their own per member (per pair), given as counts and offsets in
 * {@code long[]} arrays of bytes, in rank order.
 *
 * <h2>Use</h2>
 * Every process of the context creates the object with {@link #init} or {@link #initStrided}
 * (it registers one global memory slot), then syncs (an operation called before that sync is
 * refused); from then on the <em>members</em> make matching calls: the same operations in the same order with matching arguments. Each operation
 * only queues requests; it is complete at the end of the caller's next {@link Context#sync()
 * sync}. Up to {@code maxCalls} operations may be queued per superstep, mixed freely with the
 * caller's own puts and gets. {@link #close()} (collective, after a sync) releases the slot.
 *
 * <h2>Reservations</h2>
 * <ul>
 * <li><b>Declared in advance:</b> {@link #needs} gives both numbers below as a {@link Capacity}
 *     before the object exists, to be added to the program's own needs (and other libraries')
 *     and reserved in one sync.</li>
 * <li><b>Memory register:</b> one entry per object, consumed by {@code init}.</li>
 * <li><b>Message queue:</b> per superstep, per operation, the entries its Javadoc names. As the
 *     core specification counts them, a put or get takes one entry at its origin and one at its
 *     target (which may be the origin itself), so each operation's Javadoc gives, per member,
 *     the requests it issues plus the requests that target it. None takes more than 2P (P the
 *     number of members) at any member in any superstep; {@link #queueEntries()} gives the total
 *     a process needs for {@code maxCalls} operations in one superstep. The object queues nothing
 *     of its own: it notices superstep boundaries with {@link Context#superstep()}.</li>
 * <li><b>Memory:</b> {@code 8 + maxCalls · max(maxByteSize, maxElemSize)} bytes at each member
 *     (rounded up to 8 per call), plus {@code 32·P} for alltoallv's offsets when the members are
 *     all processes; none at a non-member.</li>
 * </ul>
 *
 * <h2>Supersteps and algorithms</h2>
 * Every variant of every operation completes in the caller's next sync. Variants
 * {@link Algorithm#TWO_PHASE} and {@link Algorithm#TREE} of broadcast, reduce, allreduce,
 * combine and allcombine take two supersteps: the call itself syncs once (which also completes
 * everything else queued before it) and queues the second superstep. They are used only when
 * the members are all processes of the context, because every process must make the same
 * number of syncs; on a strict subset ({@link #initStrided}) every operation is a single
 * superstep, reductions included: they use combining puts ({@link MsgAttr#combining}), which the
 * receiving process applies inside the sync.
 *
 * <h2>Engines without combining puts</h2>
 * Every reduction variant (reduce, allreduce, combine, allcombine) uses combining puts. On an
 * engine whose contexts do not {@link Context#supports support} {@link Capability#COMBINING_PUTS}
 * those four calls throw {@link UnsupportedOperationException} at once, before queueing anything
 * (the object stays usable); broadcast, gather, scatter, allgather, alltoall, allgatherv and
 * alltoallv use plain puts and gets only and work on every engine. With {@link Algorithm#AUTO}
 * (the default) each call picks the variant of least BSP cost from the g and l that {@link Context#probe()} measured,
 * pricing each superstep with {@link org.lpf4j.Machine#g(int, long) g(q, size)} and
 * {@code l(q, size)} of the q processes that communicate in it (every member for DIRECT and
 * TWO_PHASE; the group leaders, then the largest group, for the two levels of TREE) — or, when
 * the machine reports its nodes ({@link org.lpf4j.Machine#levels()}), with the intra-node g for
 * bytes that stay in a node and the inter-node g for the bytes a node sends across, the tree's
 * groups then being the nodes ({@link #treeGroups()});
 * {@link #algorithm(Algorithm)} forces one for all operations of the object. Otherwise the user
 * may force one per operation with the selected {@code coll} module's parameter — for the
 * built-in {@code costmodel} module {@code lpf.coll.costmodel.<operation>=auto|direct|two_phase|tree}
 * (system property {@code -Dlpf.coll.costmodel.allreduce=two_phase}, environment variable
 * {@code LPF_COLL_COSTMODEL_ALLREDUCE}, or {@code lpf run --param}); it is read once by
 * {@link #init} (later changes do not affect existing objects), an invalid value makes
 * {@code init} fail, and it does not apply to a strict subset of the processes, which only has
 * the one-superstep variant. The choice is a function of the arguments, the
 * member count and the probed machine, so it agrees on all members (engines must report the
 * same machine on every process; the threads engine caches one measurement per JVM). A call
 * that syncs internally starts a new superstep: it counts as the first call of that superstep
 * towards {@code maxCalls}, and requests the caller queued before it are delivered at the
 * internal sync. On the threads engine, which pulls data at the receiver, the BSP table
 * overestimates the cost of {@link Algorithm#DIRECT} broadcasts (the root's h is read in parallel
 * by the receivers), so forcing {@code DIRECT} can be faster there for large vectors.
 *
 * <h2>Ranks</h2>
 * Members are numbered 0 … P−1 in pid order ({@code rank = (pid − lo) / stride}); data
 * placement ("block k") is by rank; {@code root} arguments are pids.
 *
 * <h2>Errors</h2>
 * Bad arguments that can be checked locally — a size above {@code maxByteSize} or
 * {@code maxElemSize}, a negative size, a root outside the context or not a member, more than
 * {@code maxCalls} calls in one superstep, a slot that must be global and is not, a registered
 * area too small, {@code src} equal to {@code dst} where the specification forbids it, a call by
 * a non-member, before the sync that follows {@code init}, or after {@code close} — throw an
 * exception naming the call, the pid and the values, and have no effect. Mismatched calls across
 * members are not detected.
 *
 * <p>An engine error raised part-way through an operation (typically the message queue being
 * full: {@link IllegalStateException}) propagates to the caller; the requests that operation
 * queued before the error stay queued (the LPF core cannot withdraw a queued request) and are
 * executed by the next sync. The failed call does not count towards {@code maxCalls} nor advance
 * the object's buffer rotation, and the object then refuses every further operation until the
 * next sync, after which it is usable again (whether the members still agree is then up to the
 * program: a call that failed at one member only has left the members out of step).
 *
 * <p>Not thread-safe: used by the thread of the process that owns the context.
 */
public final class Collectives implements AutoCloseable {
    /** Bytes before the first call region (kept for the 8-byte alignment of the regions). */
    private static final long HEADER = 8;
    /**
     * Bytes per member of the alltoallv metadata area (objects over all processes only), after
     * the header: an outgoing and an incoming (offset, count) pair of longs per member.
     */
    private static final long META_PER_MEMBER = 32;

    final Context ctx;
    final Members members;
    final Groups groups;
    final MemorySegment buffer;
    final Memslot bufferSlot;
    private final Arena arena;
    private final int maxCalls;
    private final long maxElemSize;
    private final long maxByteSize;
    private final long regionSize;
    /** Where the call regions start: after the header and, over all processes, the alltoallv metadata. */
    private final long regionsStart;
    private final Machine machine;
    private final CombiningAttrs attrs = new CombiningAttrs();
    private final ForcedAlgorithms configured;
    /** Asks the selected coll module to choose among the variants' predicted times. */
    private final ModuleChoice choice;
    private Algorithm forced = Algorithm.AUTO;
    /** {@link Context#superstep()} when the object was created: no operation before the next sync. */
    private final long initStep;
    private boolean closed;
    /** {@link Context#superstep()} of the last successful call, -1 before the first. */
    private long lastCallStep = -1;
    /** Successful calls in superstep {@link #lastCallStep}. */
    private int callsThisStep;
    /** Successful calls over the object's life: selects the next call's buffer region. */
    private long callCount;
    /** {@link Context#superstep()} in which a call failed part-way, -1 if none: refuse calls until it ends. */
    private long failedStep = -1;

    private Collectives(Context ctx, Members members, Arena arena, MemorySegment buffer, Memslot bufferSlot,
                        int maxCalls, long maxElemSize, long maxByteSize, long regionSize, Machine machine,
                        ForcedAlgorithms configured) {
        this.ctx = ctx;
        this.members = members;
        this.groups = Groups.of(Math.max(1, members.count), machine);
        this.arena = arena;
        this.buffer = buffer;
        this.bufferSlot = bufferSlot;
        this.maxCalls = maxCalls;
        this.maxElemSize = maxElemSize;
        this.maxByteSize = maxByteSize;
        this.regionSize = regionSize;
        this.regionsStart = HEADER + meta(members);
        this.machine = machine;
        this.configured = configured;
        this.choice = new ModuleChoice(configured.module(), machine, groups, members.count);
        this.initStep = ctx.superstep();
    }

    // =====================================================================================
    // life cycle
    // =====================================================================================

    /**
     * Creates a collectives object over all processes of {@code ctx}
     * ({@code lpf_collectives_init}). Collective: every process calls it in the same superstep;
     * the object is usable after the next sync. Registers one global slot (one memory-register
     * entry must be free) and allocates {@code 8 + 32·P + maxCalls · max(maxByteSize, maxElemSize)}
     * bytes. The first object for a given process count probes the machine (see
     * {@link Context#probe()}); later ones reuse the measurement. Reads the per-operation
     * algorithm parameters of the selected {@code coll} module (see the class comment).
     *
     * <p>{@code maxCalls}, {@code maxElemSize} and {@code maxByteSize} must be equal on all
     * processes. The specification allows them to differ; this implementation requires equal
     * values, because every member computes the offsets of its calls' areas in the other
     * members' buffers from its own values (mismatched values are not detected and corrupt data).
     *
     * @param ctx         the context, at this process
     * @param maxCalls    operations this process may queue on the object per superstep, ≥ 1
     * @param maxElemSize the largest element size of reduce/allreduce, in bytes, ≥ 0
     * @param maxByteSize the largest size of broadcast, gather, scatter, allgather, alltoall, and
     *                    of {@code num·size} of combine/allcombine, in bytes, ≥ 0
     * @return the object
     * @throws IllegalArgumentException if a bound is out of range, or an algorithm parameter is
     *                                  invalid (naming the key, the value and its source)
     * @throws IllegalStateException    if the memory register is full (the message says what to reserve), or the selected coll
     *                                  module cannot run
     * @throws LpfOutOfMemoryException  if the buffer's size overflows (on every process alike), or
     *                                  this process cannot allocate it (on this process alone: the
     *                                  others may hold the object, so the section should end);
     *                                  nothing changed at this process
     */
    public static Collectives init(Context ctx, int maxCalls, long maxElemSize, long maxByteSize) {
        Objects.requireNonNull(ctx, "Collectives.init: ctx is null");
        return create("init", ctx, 0, ctx.nprocs(), 1, maxCalls, maxElemSize, maxByteSize);
    }

    /**
     * Creates a collectives object over the pids {@code lo, lo+stride, …} below {@code hi}
     * ({@code lpf_collectives_init_strided}). Collective over <em>all</em> processes of
     * {@code ctx} (each registers one global slot, of zero bytes at non-members); only members
     * call the operations, and since the others do not, every operation completes in one
     * superstep without internal syncs (unless the subset is every process). Otherwise as
     * {@link #init}; in particular {@code lo}, {@code hi}, {@code stride}, {@code maxCalls},
     * {@code maxElemSize} and {@code maxByteSize} must be equal on all processes (the
     * specification allows different bounds; this implementation requires equal ones, because
     * the offsets into other members' buffers are computed from local values).
     *
     * @param ctx         the context, at this process
     * @param lo          the first pid, 0 ≤ lo ≤ hi
     * @param hi          the bound (exclusive) on pids, lo ≤ hi ≤ nprocs; hi = lo gives no members
     * @param stride      the pid stride, ≥ 1
     * @param maxCalls    operations a member may queue on the object per superstep, ≥ 1
     * @param maxElemSize the largest element size of reduce/allreduce, in bytes, ≥ 0
     * @param maxByteSize the largest byte size of the other operations, ≥ 0
     * @return the object
     * @throws IllegalArgumentException if a bound is out of range
     * @throws IllegalStateException    if the memory register is full (the message says what to reserve)
     * @throws LpfOutOfMemoryException  if the members' buffer size overflows (on every process,
     *                                  members or not), or a member cannot allocate it (at that
     *                                  member alone: the others may hold the object, so the
     *                                  section should end); nothing changed at this process
     */
    public static Collectives initStrided(Context ctx, int lo, int hi, int stride, int maxCalls, long maxElemSize,
                                          long maxByteSize) {
        Objects.requireNonNull(ctx, "Collectives.initStrided: ctx is null");
        if (lo < 0 || hi < lo || hi > ctx.nprocs() || stride < 1) {
            throw new IllegalArgumentException("Collectives.initStrided(lo=" + lo + ", hi=" + hi + ", stride=" + stride
                    + ") at pid " + ctx.pid() + " of " + ctx.nprocs() + ": need 0 <= lo <= hi <= nprocs and stride >= 1");
        }
        return create("initStrided", ctx, lo, hi, stride, maxCalls, maxElemSize, maxByteSize);
    }

    private static Collectives create(String call, Context ctx, int lo, int hi, int stride, int maxCalls,
                                      long maxElemSize, long maxByteSize) {
        if (maxCalls < 1 || maxElemSize < 0 || maxByteSize < 0) {
            throw new IllegalArgumentException("Collectives." + call + "(maxCalls=" + maxCalls + ", maxElemSize="
                    + maxElemSize + ", maxByteSize=" + maxByteSize + ") at pid " + ctx.pid()
                    + ": need maxCalls >= 1 and non-negative sizes");
        }
        Members members = new Members(ctx.nprocs(), ctx.pid(), lo, hi, stride);
        long largest = Math.max(maxElemSize, maxByteSize);
        long region = largest > Long.MAX_VALUE - 7 ? -1 : (largest + 7) & ~7L;
        long start = HEADER + meta(members);
        // Checked at non-members too (they allocate nothing): the arguments match, so every process refuses alike.
        long memberBytes = region < 0 || region > (Long.MAX_VALUE - start) / maxCalls ? -1 : start + maxCalls * region;
        long bytes = members.rank < 0 ? 0 : memberBytes;
        if (memberBytes < 0) {
            throw new LpfOutOfMemoryException("Collectives." + call + "(maxCalls=" + maxCalls + ", maxElemSize="
                    + maxElemSize + ", maxByteSize=" + maxByteSize + ") at pid " + ctx.pid()
                    + ": the buffer size overflows; nothing changed", null);
        }
        ForcedAlgorithms configured = ForcedAlgorithms.read(members.everyone, "Collectives." + call + " at pid "
                + ctx.pid());
        Machine machine = members.everyone && members.count > 2 ? ctx.probe() : null;
        Arena arena = Arena.ofShared();
        try {
            MemorySegment buffer = arena.allocate(bytes, 8);
            Memslot slot = register(call, ctx, buffer, members, maxCalls, maxElemSize, maxByteSize);
            return new Collectives(ctx, members, arena, buffer, slot, maxCalls, maxElemSize, maxByteSize, region,
                    machine, configured);
        } catch (OutOfMemoryError e) {
            arena.close();
            throw new LpfOutOfMemoryException("Collectives." + call + " at pid " + ctx.pid() + ": cannot allocate "
                    + bytes + " bytes for maxCalls=" + maxCalls + " buffers; nothing changed", e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * {@code ctx.registerGlobal(buffer)}; a refusal (typically a full register: the program did
     * not reserve the entry) is reported as {@code init}'s, with what it needs and how to reserve it.
     */
    private static Memslot register(String call, Context ctx, MemorySegment buffer, Members members, int maxCalls,
                                    long maxElemSize, long maxByteSize) {
        try {
            return ctx.registerGlobal(buffer);
        } catch (IllegalStateException e) {
            long queue = (long) maxCalls * 2 * members.count;
            throw new IllegalStateException("Collectives." + call + "(maxCalls=" + maxCalls + ", maxElemSize=" + maxElemSize
                    + ", maxByteSize=" + maxByteSize + ") at pid " + ctx.pid() + " of " + ctx.nprocs()
                    + ": cannot register its buffer: " + e.getMessage() + ". Collectives." + call + " needs one free"
                    + " memory-register entry (a global slot), and its operations up to maxCalls x 2 x members = " + queue
                    + " message-queue entries per superstep (queueEntries()); reserve both on every process before "
                    + call + ": ctx.resizeMemoryRegister(own slots + 1) and ctx.resizeMessageQueue(own requests + "
                    + queue + "), then ctx.sync()", e);
        }
    }

    /** @return the bytes of the alltoallv metadata area: {@value #META_PER_MEMBER}·P over all processes, else 0 */
    private static long meta(Members members) {
        return members.everyone ? META_PER_MEMBER * members.count : 0;
    }

    /**
     * What one object made by {@code init(ctx, maxCalls, maxElemSize, maxByteSize)} on
     * {@code members} processes needs reserved, declared before it exists so that a program can
     * add it to its own needs and those of other libraries and reserve everything in one sync
     * ({@link Capacity#plus}, {@link Capacity#reserve}): one register slot (its buffer) and
     * {@link #queueEntries()} = {@code maxCalls · 2P} queue entries per superstep, P =
     * {@code members}. The entries follow the core specification's count (a request takes one at
     * its origin and one at its target): a superstep of {@code maxCalls} calls of
     * {@code allgather} without {@code excludeMyself} (or of {@code alltoallv}'s data superstep
     * with every part non-empty) takes exactly that many at every member. For
     * {@link #initStrided} pass the number of members as {@code members} and reserve the value on
     * every process. The sizes are checked as {@code init} checks them; they change the buffer's
     * memory, not the capacity. O(1).
     *
     * @param members     processes of the object (for {@link #init}: {@code ctx.nprocs()}), ≥ 0
     * @param maxCalls    as for {@code init}, ≥ 1
     * @param maxElemSize as for {@code init}, ≥ 0
     * @param maxByteSize as for {@code init}, ≥ 0
     * @return the capacity the object needs: {@code (1, maxCalls · 2 · members)}
     * @throws IllegalArgumentException if an argument is out of range
     * @throws ArithmeticException      if the entries overflow a long
     */
    public static Capacity needs(int members, int maxCalls, long maxElemSize, long maxByteSize) {
        if (members < 0 || maxCalls < 1 || maxElemSize < 0 || maxByteSize < 0) {
            throw new IllegalArgumentException("Collectives.needs(members=" + members + ", maxCalls=" + maxCalls
                    + ", maxElemSize=" + maxElemSize + ", maxByteSize=" + maxByteSize
                    + "): need members >= 0, maxCalls >= 1 and non-negative sizes");
        }
        return Capacity.of(1, Math.multiplyExact(2L * maxCalls, members));
    }

    /** @return the context this object was made with ({@code lpf_collectives_get_context}) */
    public Context context() { return ctx; }

    /** @return the number of members P */
    public int members() { return members.count; }

    /** @return this process's rank among the members, or -1 if it is not a member */
    public int rank() { return members.rank; }

    /**
     * The groups of the two-level tree ({@link Algorithm#TREE}): the machine's nodes when
     * {@link Context#probe()} reports {@link Machine#levels() levels} for the members (all
     * processes of the context), otherwise about √P groups of consecutive ranks counted from the
     * root. O(G); allocates the answer.
     *
     * @return the size of each group, in rank order of the groups (for √P groups: of virtual
     *         ranks, root first)
     */
    public int[] treeGroups() {
        int[] sizes = new int[groups.count];
        for (int g = 0; g < sizes.length; g++) sizes[g] = groups.size(g);
        return sizes;
    }

    /** @return whether the tree's groups are the machine's nodes (see {@link #treeGroups()}) */
    public boolean treeGroupsAreNodes() { return groups.nodes; }

    /**
     * The message-queue entries that suffice, at every member, for {@code maxCalls} operations
     * of any kind and variant in one superstep, counting (as the core specification does) each
     * put or get once at its origin and once at its target: {@code maxCalls · 2P}, because no
     * operation's half takes more than 2P entries at any member (allgather without
     * {@code excludeMyself} takes exactly 2P). Reserve it with
     * {@link Context#resizeMessageQueue} on every process (the value must be the same on all),
     * plus whatever the program queues itself. O(1).
     *
     * @return {@code maxCalls · 2P} at a member, 0 at a non-member (which takes part in no request
     *         of this object; as the capacity must be equal on all processes, reserve the members'
     *         value everywhere)
     */
    public long queueEntries() {
        return members.rank < 0 ? 0 : (long) maxCalls * 2 * members.count;
    }

    /**
     * Forces an algorithm variant for later broadcast, reduce, allreduce, combine and allcombine
     * calls, or {@link Algorithm#AUTO} to choose by cost. All members must set the same. O(1).
     *
     * @param algorithm the variant
     * @return this object
     * @throws IllegalStateException if a two-superstep variant is forced on an object whose
     *                               members are not all processes of the context
     */
    public Collectives algorithm(Algorithm algorithm) {
        Objects.requireNonNull(algorithm, "Collectives.algorithm: null");
        if (!members.everyone && algorithm != Algorithm.AUTO && algorithm != Algorithm.DIRECT) {
            throw new IllegalStateException("Collectives.algorithm(" + algorithm + ") at pid " + ctx.pid()
                    + ": the members (" + members + ") are not all " + ctx.nprocs() + " processes, so operations"
                    + " cannot sync internally; only DIRECT (one superstep) is possible");
        }
        forced = algorithm;
        return this;
    }

    /** @return the variant forced by {@link #algorithm(Algorithm)}, or {@link Algorithm#AUTO} */
    public Algorithm algorithm() { return forced; }

    /**
     * The variant an operation runs unless chosen by cost: the one forced by
     * {@link #algorithm(Algorithm)}, else the one the coll parameter forced when the object was
     * created, else {@link Algorithm#AUTO}. O(1).
     *
     * @param operation {@code "broadcast"}, {@code "reduce"}, {@code "allreduce"}, {@code "combine"}
     *                  or {@code "allcombine"}
     * @return the forced variant, or {@link Algorithm#AUTO}
     * @throws IllegalArgumentException for another operation (the others have one algorithm)
     */
    public Algorithm algorithm(String operation) {
        for (int i = 0; i < ForcedAlgorithms.OPERATIONS.length; i++) {
            if (ForcedAlgorithms.OPERATIONS[i].equals(operation)) return variant(i);
        }
        throw new IllegalArgumentException("Collectives.algorithm(\"" + operation + "\"): not an operation with "
                + "several algorithms; those are " + String.join(", ", ForcedAlgorithms.OPERATIONS));
    }

    private Algorithm variant(int operation) {
        return forced != Algorithm.AUTO ? forced : configured.of(operation);
    }

    /**
     * Destroys the object ({@code lpf_collectives_destroy}): deregisters its slot and frees its
     * buffer. Collective over all processes of the context, in the same order as other global
     * (de)registrations; no request naming the object may be pending, so sync after the last
     * operation first. A second call does nothing.
     *
     * @throws IllegalStateException if an operation of this superstep has not been synced yet
     */
    @Override
    public void close() {
        if (closed) return;
        if ((callsThisStep > 0 && lastCallStep == ctx.superstep()) || failedStep == ctx.superstep()) {
            throw new IllegalStateException("Collectives.close at pid " + ctx.pid()
                    + ": an operation queued in this superstep is still pending; sync before close");
        }
        ctx.deregister(bufferSlot);
        closed = true;
        arena.close();
    }

    // =====================================================================================
    // operations
    // =====================================================================================

    /**
     * Broadcasts {@code size} bytes of the root's {@code src} into every other member's
     * {@code dst} ({@code lpf_broadcast}); complete at the end of the next sync. Nothing is
     * written at the root; nothing of the caller's is read at non-roots.
     * <ul>
     * <li>Variants: {@link Algorithm#DIRECT} one superstep, {@code (P−1)·size·g + l};
     *     {@link Algorithm#TWO_PHASE} scatter + allgather, {@code 2(size·g + l)};
     *     {@link Algorithm#TREE} {@code 2(√P·size·g + l)}. The latter two sync once inside this
     *     call (objects over all processes only).</li>
     * <li>Queue entries per member, issued plus targeted (non-roots issue gets, the root is their
     *     target): DIRECT 1 at a non-root, P−1 at the root; TWO_PHASE before the internal sync 1
     *     at a non-root, P−1 at the root, after it at most 2P−1 at a non-root (P gets, one of them
     *     from its own buffer, and the target of the other non-roots' gets) and P−1 at the root;
     *     TREE before the sync 1 at a group leader, G−1 at the root, after it 1 at a non-leader,
     *     c+1 at a leader and c−1 at the root (G groups of at most c ≈ √P members).</li>
     * </ul>
     * An engine error part-way (queue full) leaves this call's earlier requests queued; see the
     * class comment.
     *
     * @param src  the global slot of the root's data, registered by every process; every member
     *             passes its handle of it (non-roots name the root's area with it, and it must be
     *             global there too); at the root at least {@code size} bytes to send, never read
     *             elsewhere
     * @param dst  at non-roots, a local or global slot of at least {@code size} bytes; unused at
     *             the root (may be null); may equal {@code src}
     * @param size bytes, 0 ≤ size ≤ maxByteSize
     * @param root the pid of the root, a member
     */
    public void broadcast(Memslot src, Memslot dst, long size, int root) {
        String call = "broadcast";
        int rootRank = checkRooted(call, size, root, "src", src, size, "dst", dst);
        Algorithm a = variant(ForcedAlgorithms.BROADCAST);
        if (a == Algorithm.AUTO) a = choice.broadcast(size);
        long region = beginCall(call);
        try {
            Broadcasts.run(this, a, src, dst, size, rootRank, region);
        } catch (RuntimeException | Error e) {
            failCall(call, e);
            throw e;
        }
        endCall();
    }

    /**
     * Gathers {@code size} bytes of every non-root member's {@code src} into the root's
     * {@code dst} at byte {@code k·size} for member rank k ({@code lpf_gather}); the root's own
     * block is not touched. One superstep, {@code (P−1)·size·g + l}, complete at the next sync.
     * Queue entries (issued plus targeted): 1 at a non-root (its put), P−1 at the root (the
     * target of every put).
     * An engine error part-way (queue full) leaves this call's earlier requests queued; see the
     * class comment.
     *
     * @param src  at non-roots, a local or global slot of at least {@code size} bytes; unused at
     *             the root (may be null)
     * @param dst  the global slot of the root's result, registered by every process; every member
     *             passes its handle of it (non-roots name the root's area with it); at the root at
     *             least {@code P·size} bytes; may equal {@code src}
     * @param size bytes per member, 0 ≤ size ≤ maxByteSize
     * @param root the pid of the root, a member
     */
    public void gather(Memslot src, Memslot dst, long size, int root) {
        String call = "gather";
        int rootRank = checkRooted(call, size, root, "dst", dst, members.count * size, "src", src);
        beginCall(call);
        try {
            Exchanges.gather(this, src, dst, size, rootRank);
        } catch (RuntimeException | Error e) {
            failCall(call, e);
            throw e;
        }
        endCall();
    }

    /**
     * Scatters the root's {@code src}: member rank k ≠ root receives bytes
     * {@code [k·size, (k+1)·size)} in its {@code dst} ({@code lpf_scatter}). Nothing is written
     * at the root. One superstep, {@code (P−1)·size·g + l}, complete at the next sync. Queue
     * entries (issued plus targeted): 1 at a non-root (its get), P−1 at the root (the target of
     * every get).
     * An engine error part-way (queue full) leaves this call's earlier requests queued; see the
     * class comment.
     *
     * @param src  the global slot of the root's data, registered by every process; every member
     *             passes its handle of it (non-roots name the root's area with it, and it must be
     *             global there too); at the root at least {@code P·size} bytes, never read elsewhere
     * @param dst  at non-roots a local or global slot of at least {@code size} bytes; unused at
     *             the root (may be null); may equal {@code src}
     * @param size bytes per member, 0 ≤ size ≤ maxByteSize
     * @param root the pid of the root, a member
     */
    public void scatter(Memslot src, Memslot dst, long size, int root) {
        String call = "scatter";
        int rootRank = checkRooted(call, size, root, "src", src, members.count * size, "dst", dst);
        beginCall(call);
        try {
            Exchanges.scatter(this, src, dst, size, rootRank);
        } catch (RuntimeException | Error e) {
            failCall(call, e);
            throw e;
        }
        endCall();
    }

    /**
     * Every member's {@code size} bytes of {@code src} land in every other member's {@code dst}
     * at byte {@code k·size}, k the sender's rank ({@code lpf_allgather}); with
     * {@code excludeMyself} false a member also copies its own block into its {@code dst}. One
     * superstep, {@code (P−1)·size·g + l}, complete at the next sync. Queue entries per member
     * (issued plus targeted): 2P−2 (P−1 puts and the target of P−1), 2P without
     * {@code excludeMyself} (a put to itself counts at origin and at target).
     * An engine error part-way (queue full) leaves this call's earlier requests queued; see the
     * class comment.
     *
     * @param src           local or global slot of at least {@code size} bytes; not {@code dst}
     *                      (it may be a separately registered view of this member's block of dst)
     * @param dst           global slot of at least {@code P·size} bytes
     * @param size          bytes per member, 0 ≤ size ≤ maxByteSize
     * @param excludeMyself whether to skip the copy into this member's own block
     */
    public void allgather(Memslot src, Memslot dst, long size, boolean excludeMyself) {
        String call = "allgather";
        checkMember(call);
        checkSize(call, "size", size, maxByteSize, "maxByteSize");
        requireDistinct(call, src, dst);
        requireArea(call, "src", src, false, size);
        requireArea(call, "dst", dst, true, members.count * size);
        beginCall(call);
        try {
            Exchanges.allgather(this, src, dst, size, excludeMyself);
        } catch (RuntimeException | Error e) {
            failCall(call, e);
            throw e;
        }
        endCall();
    }

    /**
     * Transposes blocks: member s's {@code dst} block k (bytes {@code [k·size, (k+1)·size)})
     * receives member k's {@code src} block s, for k ≠ s ({@code lpf_alltoall}); the diagonal is
     * not copied and {@code src} is never written. One superstep, {@code (P−1)·size·g + l},
     * complete at the next sync. Queue entries per member (issued plus targeted): 2P−2 (P−1
     * puts and the target of P−1).
     * An engine error part-way (queue full) leaves this call's earlier requests queued; see the
     * class comment.
     *
     * @param src  global slot of at least {@code P·size} bytes, not overlapping {@code dst}
     * @param dst  global slot of at least {@code P·size} bytes; must not equal {@code src}
     * @param size bytes per block, 0 ≤ size ≤ maxByteSize
     */
    public void alltoall(Memslot src, Memslot dst, long size) {
        String call = "alltoall";
        checkMember(call);
        checkSize(call, "size", size, maxByteSize, "maxByteSize");
        requireDistinct(call, src, dst);
        requireArea(call, "src", src, true, members.count * size);
        requireArea(call, "dst", dst, true, members.count * size);
        beginCall(call);
        try {
            Exchanges.alltoall(this, src, dst, size);
        } catch (RuntimeException | Error e) {
            failCall(call, e);
            throw e;
        }
        endCall();
    }

    /**
     * Every member's block, of a size of its own, lands in every member's {@code dst}
     * ({@code MPI_Allgatherv}): member k's first {@code counts[k]} bytes of {@code src} go to
     * bytes {@code [offsets[k], offsets[k] + counts[k])} of every other member's {@code dst}, and
     * of its own unless {@code excludeMyself}. {@code counts} and {@code offsets} describe the
     * same layout at every member (the same values everywhere; this member's own block is
     * {@code counts[rank()]} bytes): the sender puts straight into the receivers' areas, so it
     * uses its own copy of the offsets for all of them (differing values are not detected and
     * misplace data). Blocks may be empty; overlapping blocks end as some serialisation of the
     * writers. Unlike the fixed-size operations the sizes are not bounded by {@code maxByteSize}:
     * nothing is staged in the object's buffer.
     * <ul>
     * <li>One algorithm (no variants): one superstep, complete at the next sync, on any object
     *     (strided ones too); {@code h·g + l} with h the larger of {@code (P−1)·counts[k]} sent
     *     and {@code Σ_{j≠k} counts[j]} received at the busiest member k.</li>
     * <li>Queue entries per member (issued plus targeted): at most 2P−2 (P−1 puts and the target
     *     of P−1), 2P without {@code excludeMyself}; an empty block is not sent.</li>
     * </ul>
     * An engine error part-way (queue full) leaves this call's earlier requests queued; see the
     * class comment.
     *
     * @param src           local or global slot of at least {@code counts[rank()]} bytes; not
     *                      {@code dst} (it may be a separately registered view of this member's
     *                      block of dst)
     * @param dst           global slot that holds every block: at least
     *                      {@code max(offsets[k] + counts[k])} bytes
     * @param counts        bytes of member k's block, at index k (rank order), each ≥ 0; at least P entries
     * @param offsets       byte offset of member k's block in {@code dst}, each ≥ 0; at least P entries
     * @param excludeMyself whether to skip the copy of this member's block into its own {@code dst}
     */
    public void allgatherv(Memslot src, Memslot dst, long[] counts, long[] offsets, boolean excludeMyself) {
        String call = "allgatherv";
        checkMember(call);
        requireDistinct(call, src, dst);
        checkParts(call, "counts", counts, "offsets", offsets, "dst", dst, true);
        requireArea(call, "src", src, false, counts[members.rank]);
        beginCall(call);
        try {
            Exchanges.allgatherv(this, src, dst, counts[members.rank], offsets[members.rank], excludeMyself);
        } catch (RuntimeException | Error e) {
            failCall(call, e);
            throw e;
        }
        endCall();
    }

    /**
     * Exchanges parts of a size of their own between every pair of members
     * ({@code MPI_Alltoallv}): member s's {@code dst} bytes
     * {@code [recvOffsets[k], recvOffsets[k] + recvCounts[k])} receive member k's {@code src} bytes
     * {@code [sendOffsets[s], sendOffsets[s] + sendCounts[s])}, for every k including s itself
     * (as in MPI, the diagonal is copied too). As in MPI each member passes only what it knows:
     * what it sends (counts and offsets per receiver, in its {@code src}) and what it receives
     * (counts and offsets per sender, in its {@code dst}); {@code sendCounts[s]} at member k must
     * equal {@code recvCounts[k]} at member s — usually the program learns its receive counts
     * with an {@link #alltoall} of the send counts one superstep before. A mismatch is detected
     * by the receiver after the internal sync and throws {@link IllegalStateException} naming
     * both counts. Parts may be empty; the sizes are not bounded by {@code maxByteSize}
     * (nothing is staged in the object's buffer). Receive parts may overlap (MPI calls that
     * erroneous): as in {@link #allgatherv}, overlapping bytes end as some serialisation of the
     * senders' parts, the core's rule for write conflicts.
     * <ul>
     * <li>One algorithm (no variants; {@link Algorithm} does not apply): two supersteps. Each
     *     member puts the (offset, count) of its part for member k into k's part of the object's
     *     buffer and the call syncs once; then each member gets its part from every sender
     *     straight into its {@code dst}; complete at the caller's next sync. Cost
     *     {@code 16(P−1)·g + l + h·g + l}, h the larger of the bytes the busiest member sends
     *     and receives off the diagonal. The internal sync makes it available only on objects over
     *     all processes ({@link #init}, or {@link #initStrided} covering every process); with one
     *     member there is no internal sync. Like the two-superstep variants of the other
     *     operations, the internal sync completes the requests queued before the call, and the
     *     call counts as the first of the new superstep towards {@code maxCalls}.</li>
     * <li>Queue entries per member (issued plus targeted): before the internal sync 2P−2 (P−1
     *     puts of 16 bytes and the target of P−1), after it at most 2P (a get per non-empty part,
     *     its own part's included, and the target of the others' gets).</li>
     * </ul>
     * An engine error part-way (queue full) leaves this call's earlier requests queued; see the
     * class comment.
     *
     * @param src         global slot of every part this member sends: at least
     *                    {@code max(sendOffsets[k] + sendCounts[k])} bytes; not {@code dst}
     * @param sendCounts  bytes this member sends to member k, at index k (rank order), each ≥ 0;
     *                    at least P entries
     * @param sendOffsets byte offset in {@code src} of the part for member k, each ≥ 0
     * @param dst         local or global slot that receives every part: at least
     *                    {@code max(recvOffsets[k] + recvCounts[k])} bytes
     * @param recvCounts  bytes this member receives from member k, each ≥ 0; at least P entries
     * @param recvOffsets byte offset in {@code dst} of the part from member k, each ≥ 0
     * @throws IllegalStateException if the members are not all processes of the context, or
     *                               (after the internal sync) a sender's count differs from
     *                               {@code recvCounts}
     */
    public void alltoallv(Memslot src, long[] sendCounts, long[] sendOffsets, Memslot dst, long[] recvCounts,
                          long[] recvOffsets) {
        String call = "alltoallv";
        checkMember(call);
        if (!members.everyone) {
            throw new IllegalStateException(call + " at pid " + ctx.pid() + ": the members (" + members + ") are not all "
                    + ctx.nprocs() + " processes, and alltoallv syncs once inside the call to exchange the parts'"
                    + " offsets; use an object made by Collectives.init");
        }
        requireDistinct(call, src, dst);
        checkParts(call, "sendCounts", sendCounts, "sendOffsets", sendOffsets, "src", src, true);
        checkParts(call, "recvCounts", recvCounts, "recvOffsets", recvOffsets, "dst", dst, false);
        int r = members.rank;
        if (sendCounts[r] != recvCounts[r]) {
            throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": sendCounts[" + r + "] = "
                    + sendCounts[r] + " but recvCounts[" + r + "] = " + recvCounts[r] + " (this member's part for itself)");
        }
        beginCall(call);
        try {
            Exchanges.alltoallv(this, src, sendCounts, sendOffsets, dst, recvCounts, recvOffsets, HEADER);
        } catch (RuntimeException | Error e) {
            failCall(call, e);
            throw e;
        }
        endCall();
    }

    /**
     * Reduces one {@code size}-byte element per member into the root's {@code element}
     * ({@code lpf_reduce}): after the next sync the root's element is the ⊕ of all members'
     * elements, ⊕ given by {@code reducer}; the other members' elements are unchanged.
     * <ul>
     * <li>Variants: {@link Algorithm#DIRECT} one superstep of combining puts into the root,
     *     {@code (P−1)·size·g + l}; {@link Algorithm#TWO_PHASE} (with a single element the root
     *     owns the only piece: DIRECT's puts, then a sync with nothing after it: one {@code l} more
     *     than DIRECT) and {@link Algorithm#TREE} (via
     *     group leaders) sync once inside this call (objects over all processes only).</li>
     * <li>Queue entries per member (issued plus targeted): DIRECT 1 at a non-root, P−1 at the
     *     root; TWO_PHASE the same before the internal sync and none after it; TREE before the
     *     sync 1 at a non-leader and c−1 at a leader, after
     *     it 1 at a leader other than the root and G−1 at the root (G groups of at most
     *     c ≈ √P members).</li>
     * </ul>
     * An engine error part-way (queue full) leaves this call's earlier requests queued; see the
     * class comment.
     *
     * @param element     this member's element; at the root it receives the result
     * @param elementSlot the global slot registered for {@code element}, at least {@code size} bytes
     * @param size        the element size in bytes, 0 ≤ size ≤ maxElemSize
     * @param reducer     the operator, associative and commutative (see {@link Reducer})
     * @param root        the pid of the root, a member
     */
    public void reduce(MemorySegment element, Memslot elementSlot, long size, Reducer reducer, int root) {
        String call = "reduce";
        int rootRank = checkReduction(call, element, elementSlot, 1, size, reducer, true, root);
        reduction(ForcedAlgorithms.REDUCE, call, element, elementSlot, 1, size,
                size == 0 ? null : attrs.ofReducer(reducer, size), rootRank);
    }

    /**
     * Reduces one {@code size}-byte element per member into every member's {@code element}
     * ({@code lpf_allreduce}): after the next sync each element is the ⊕ of all members'
     * elements, ⊕ given by {@code reducer}.
     * <ul>
     * <li>Variants: {@link Algorithm#DIRECT} one superstep, every member combines its element
     *     (copied to the object's buffer first) into every other, {@code (P−1)·size·g + l};
     *     {@link Algorithm#TWO_PHASE} and {@link Algorithm#TREE} sync once inside this call
     *     (objects over all processes only).</li>
     * <li>Queue entries per member (issued plus targeted): DIRECT 2P−2 (P−1 puts and the target
     *     of P−1); TWO_PHASE at most 2P−2 in each of the two supersteps; TREE before the internal
     *     sync 2c−2, after it at most 3(G−1) (G groups of at most c ≈ √P members, or the
     *     machine's nodes when their sizes differ by at most one; with more uneven nodes a
     *     member of a small node serves several members of a larger one, still at most 2P−2).</li>
     * </ul>
     * An engine error part-way (queue full) leaves this call's earlier requests queued; see the
     * class comment.
     *
     * @param element     this member's element, replaced by the result
     * @param elementSlot the global slot registered for {@code element}, at least {@code size} bytes
     * @param size        the element size in bytes, 0 ≤ size ≤ maxElemSize
     * @param reducer     the operator, associative and commutative (see {@link Reducer})
     */
    public void allreduce(MemorySegment element, Memslot elementSlot, long size, Reducer reducer) {
        String call = "allreduce";
        checkReduction(call, element, elementSlot, 1, size, reducer, false, 0);
        reduction(ForcedAlgorithms.ALLREDUCE, call, element, elementSlot, 1, size,
                size == 0 ? null : attrs.ofReducer(reducer, size), Reductions.ALL);
    }

    /**
     * Combines every member's array of {@code num} elements of {@code size} bytes element-wise
     * into the root's array ({@code lpf_combine}): after the next sync the root's array is
     * {@code ⊕_k array^(k)}; other members' arrays are then undefined (in this implementation:
     * unchanged by DIRECT and TREE, partly combined by TWO_PHASE).
     * <ul>
     * <li>Variants: {@link Algorithm#DIRECT} one superstep, {@code (P−1)·N·g + l} with
     *     {@code N = num·size}; {@link Algorithm#TWO_PHASE} transpose-reduce-gather
     *     {@code 2((P−1)/P·N·g + l)}; {@link Algorithm#TREE} {@code 2(√P·N·g + l)}; the latter two
     *     sync once inside this call (objects over all processes only).</li>
     * <li>Queue entries per member (issued plus targeted): DIRECT 1 at a non-root, P−1 at the
     *     root; TWO_PHASE before the internal sync at most 2P−2, after it 1 at a non-root and at
     *     most P−1 at the root; TREE before the sync 1 at a non-leader and c−1 at a leader, after
     *     it 1 at a leader other than the root and G−1 at the root (G groups of at most
     *     c ≈ √P members).</li>
     * </ul>
     * An engine error part-way (queue full) leaves this call's earlier requests queued; see the
     * class comment.
     *
     * @param array    this member's array, at least {@code num·size} bytes
     * @param slot     the global slot registered for {@code array}, at least {@code num·size} bytes
     * @param num      elements, ≥ 0
     * @param size     bytes per element, ≥ 0, with {@code num·size ≤ maxByteSize}
     * @param combiner the element-wise operator, associative and commutative (see {@link Combiner})
     * @param root     the pid of the root, a member
     */
    public void combine(MemorySegment array, Memslot slot, long num, long size, Combiner combiner, int root) {
        String call = "combine";
        int rootRank = checkReduction(call, array, slot, num, size, combiner, true, root);
        reduction(ForcedAlgorithms.COMBINE, call, array, slot, num, size,
                num * size == 0 ? null : attrs.ofCombiner(combiner, size), rootRank);
    }

    /**
     * Combines every member's array of {@code num} elements of {@code size} bytes element-wise
     * into every member's array ({@code lpf_allcombine}): after the next sync each array is
     * {@code ⊕_k array^(k)}.
     * <ul>
     * <li>Variants: {@link Algorithm#DIRECT} one superstep (the array is first copied to the
     *     object's buffer), {@code (P−1)·N·g + l} with {@code N = num·size};
     *     {@link Algorithm#TWO_PHASE} transpose-reduce-allgather {@code 2((P−1)/P·N·g + l)};
     *     {@link Algorithm#TREE} {@code 2(√P·N·g + l)}; the latter two sync once inside this call
     *     (objects over all processes only).</li>
     * <li>Queue entries per member (issued plus targeted): DIRECT 2P−2 (P−1 puts and the target
     *     of P−1); TWO_PHASE at most 2P−2 in each of the two supersteps; TREE before the internal
     *     sync 2c−2, after it at most 3(G−1) (G groups of at most c ≈ √P members, or the
     *     machine's nodes when their sizes differ by at most one; with more uneven nodes a
     *     member of a small node serves several members of a larger one, still at most 2P−2).</li>
     * </ul>
     * An engine error part-way (queue full) leaves this call's earlier requests queued; see the
     * class comment.
     *
     * @param array    this member's array, at least {@code num·size} bytes, replaced by the result
     * @param slot     the global slot registered for {@code array}, at least {@code num·size} bytes
     * @param num      elements, ≥ 0
     * @param size     bytes per element, ≥ 0, with {@code num·size ≤ maxByteSize}
     * @param combiner the element-wise operator, associative and commutative (see {@link Combiner})
     */
    public void allcombine(MemorySegment array, Memslot slot, long num, long size, Combiner combiner) {
        String call = "allcombine";
        checkReduction(call, array, slot, num, size, combiner, false, 0);
        reduction(ForcedAlgorithms.ALLCOMBINE, call, array, slot, num, size,
                num * size == 0 ? null : attrs.ofCombiner(combiner, size), Reductions.ALL);
    }

    private void reduction(int operation, String call, MemorySegment array, Memslot slot, long num, long size,
                           MsgAttr attr, int rootRank) {
        Algorithm a = variant(operation);
        if (a == Algorithm.AUTO) a = choice.reduction(operation, num, size);
        long region = beginCall(call);
        try {
            Reductions.run(this, a, array, slot, num, size, attr, rootRank, region);
        } catch (RuntimeException | Error e) {
            failCall(call, e);
            throw e;
        }
        endCall();
    }

    // =====================================================================================
    // supersteps: counting calls, internal syncs
    // =====================================================================================

    /**
     * Admits one call: refuses it after a part-way failure in this superstep or beyond
     * {@code maxCalls} calls in it, and returns the byte offset of the call's buffer region.
     * Changes nothing: {@link #endCall()} commits the call once its requests are queued. Regions
     * are handed out round-robin over all successful calls, so matching calls agree on them. O(1).
     */
    private long beginCall(String call) {
        long step = ctx.superstep();
        if (failedStep == step) {
            throw new IllegalStateException(call + " at pid " + ctx.pid() + ": an earlier operation on this object failed"
                    + " part-way in this superstep (" + step + "; its earlier requests stay queued); no operation until"
                    + " the next sync");
        }
        int used = step == lastCallStep ? callsThisStep : 0;
        if (used >= maxCalls) {
            throw new IllegalStateException(call + " at pid " + ctx.pid() + ": more than maxCalls=" + maxCalls
                    + " collective calls on this object in one superstep (sync first, or init with a larger maxCalls)");
        }
        return regionsStart + (callCount % maxCalls) * regionSize;
    }

    /**
     * Commits a call whose requests are all queued. After an internal sync the superstep number
     * has changed, so the call counts as the first of the new superstep. O(1).
     */
    private void endCall() {
        long step = ctx.superstep();
        callsThisStep = step == lastCallStep ? callsThisStep + 1 : 1;
        lastCallStep = step;
        callCount++;
    }

    /**
     * Records that the current call failed part-way: no operation until the next sync. A full
     * message queue is then reported as this call's, with what the object needs. O(1).
     *
     * @throws IllegalStateException naming the call and {@link #queueEntries()}, if {@code e} is the engine's
     *                               full-queue refusal
     */
    private void failCall(String call, Throwable e) {
        failedStep = ctx.superstep();
        if (e instanceof IllegalStateException full && full.getMessage() != null
                && full.getMessage().contains("message queue full")) {
            throw new IllegalStateException("Collectives." + call + " at pid " + ctx.pid() + " of " + ctx.nprocs() + ": "
                    + full.getMessage() + "; this object needs up to queueEntries() = " + queueEntries()
                    + " entries per superstep (maxCalls=" + maxCalls + " x 2 x " + members.count + " members) besides the"
                    + " program's own requests: ctx.resizeMessageQueue(own + " + queueEntries() + "), then ctx.sync()", full);
        }
    }

    /** The sync inside a two-superstep variant; the superstep number tells {@link #endCall()} of it. */
    void internalSync() {
        ctx.sync();
    }

    /** @return the successful calls so far (they select the buffer regions); for tests */
    long callCount() { return callCount; }

    // =====================================================================================
    // argument checks: each throws before anything is queued
    // =====================================================================================

    private void checkMember(String call) {
        if (closed) throw new IllegalStateException(call + " at pid " + ctx.pid() + ": this Collectives object is closed");
        if (ctx.superstep() == initStep) {
            throw new IllegalStateException(call + " at pid " + ctx.pid() + ": this Collectives object is usable only after"
                    + " the sync that follows init (it was created in superstep " + initStep + ", which has not ended)");
        }
        if (members.rank < 0) {
            throw new IllegalStateException(call + " at pid " + ctx.pid() + ": not a member of this Collectives object ("
                    + members + "); only members call its operations");
        }
    }

    private void checkSize(String call, String name, long value, long max, String maxName) {
        if (value < 0) throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": negative " + name + " " + value);
        if (value > max) {
            throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": " + name + " " + value + " exceeds "
                    + maxName + "=" + max + " given to init");
        }
    }

    /**
     * Checks a broadcast, gather or scatter: the root's area ({@code rootName}, a global slot
     * everywhere, {@code rootBytes} at the root) and a non-root's area ({@code size} bytes).
     *
     * @return the root's rank
     */
    private int checkRooted(String call, long size, int root, String rootName, Memslot rootSlot, long rootBytes,
                            String otherName, Memslot otherSlot) {
        checkMember(call);
        checkSize(call, "size", size, maxByteSize, "maxByteSize");
        int rootRank = rootRank(call, root);
        if (members.rank == rootRank) requireArea(call, rootName, rootSlot, true, rootBytes);
        else requireArea(call, otherName, otherSlot, false, size);
        requireGlobal(call, rootName, rootSlot);
        return rootRank;
    }

    private int rootRank(String call, int root) {
        if (root < 0 || root >= ctx.nprocs()) {
            throw new IndexOutOfBoundsException(call + " at pid " + ctx.pid() + ": root " + root + " not in [0, "
                    + ctx.nprocs() + ")");
        }
        int rank = members.rankOf(root);
        if (rank < 0) {
            throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": root " + root
                    + " is not a member (" + members + ")");
        }
        return rank;
    }

    private void requireArea(String call, String name, Memslot slot, boolean global, long bytes) {
        if (slot == null) throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": " + name + " is null");
        if (global) requireGlobal(call, name, slot);
        if (slot.size() < bytes) {
            throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": " + name + " " + slot + " has "
                    + slot.size() + " registered bytes, the call needs " + bytes);
        }
    }

    private void requireGlobal(String call, String name, Memslot slot) {
        if (slot == null || !slot.isGlobal()) {
            throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": " + name + " " + slot
                    + " must be a global slot");
        }
    }

    private void requireDistinct(String call, Memslot src, Memslot dst) {
        if (src != null && src == dst) {
            throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": src and dst are the same slot " + src
                    + "; the specification forbids it");
        }
    }

    /**
     * Checks the counts and offsets of a v-operation: at least P entries each, none negative,
     * every part inside {@code slot}'s registered area. O(P).
     */
    private void checkParts(String call, String countsName, long[] counts, String offsetsName, long[] offsets,
                            String slotName, Memslot slot, boolean global) {
        int p = members.count;
        if (counts == null || offsets == null) {
            throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": " + (counts == null ? countsName
                    : offsetsName) + " is null");
        }
        if (counts.length < p || offsets.length < p) {
            throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": " + countsName + " has " + counts.length
                    + " and " + offsetsName + " " + offsets.length + " entries; need at least one per member (" + p + ")");
        }
        if (slot == null) throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": " + slotName + " is null");
        if (global) requireGlobal(call, slotName, slot);
        for (int k = 0; k < p; k++) {
            long n = counts[k], off = offsets[k];
            if (n < 0 || off < 0) {
                throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": negative " + (n < 0
                        ? countsName + "[" + k + "] = " + n : offsetsName + "[" + k + "] = " + off));
            }
            if (off > slot.size() - n) {
                throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": the part of member " + k + " ("
                        + offsetsName + "[" + k + "] = " + off + ", " + countsName + "[" + k + "] = " + n + ") ends past the "
                        + slot.size() + " registered bytes of " + slotName + " " + slot);
            }
        }
    }

    /** Checks a reduce/allreduce/combine/allcombine call; returns the root's rank (or {@link Reductions#ALL}). */
    private int checkReduction(String call, MemorySegment array, Memslot slot, long num, long size, Object op,
                               boolean rooted, int root) {
        checkMember(call);
        if (!ctx.supports(Capability.COMBINING_PUTS)) {
            throw new UnsupportedOperationException(call + " at pid " + ctx.pid() + ": the engine has no combining puts"
                    + " (Context.supports(Capability.COMBINING_PUTS) is false), which every reduction variant uses;"
                    + " broadcast, gather, scatter, allgather and alltoall work without them");
        }
        boolean elements = call.endsWith("reduce");
        if (num < 0) throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": negative num " + num);
        checkSize(call, "size", size, elements ? maxElemSize : maxByteSize, elements ? "maxElemSize" : "maxByteSize");
        if (!elements && num > 0 && size > 0 && num > maxByteSize / size) {
            throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": num*size = " + num + "*" + size
                    + " exceeds maxByteSize=" + maxByteSize + " given to init");
        }
        int rootRank = rooted ? rootRank(call, root) : Reductions.ALL;
        // Not Objects.requireNonNull(x, call + "..."): that builds the message on every call.
        if (array == null) throw new NullPointerException(call + " at pid " + ctx.pid() + ": array/element segment is null");
        if (op == null) throw new NullPointerException(call + " at pid " + ctx.pid() + ": the operator is null");
        long bytes = num * size;
        if (array.byteSize() < bytes) {
            throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": the segment has " + array.byteSize()
                    + " bytes, the call needs " + bytes);
        }
        requireArea(call, "slot", slot, true, bytes);
        if (op instanceof Ops ops && size > 0 && ops.elementSize() != size) {
            throw new IllegalArgumentException(call + " at pid " + ctx.pid() + ": " + ops + " works on "
                    + ops.elementSize() + "-byte elements, the call has size " + size);
        }
        return rootRank;
    }

    @Override
    public String toString() {
        return "Collectives[pid " + ctx.pid() + ", " + members + ", maxCalls " + maxCalls + ", maxElemSize "
                + maxElemSize + ", maxByteSize " + maxByteSize + (closed ? ", closed" : "") + "]";
    }
}
