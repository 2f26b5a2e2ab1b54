package org.lpf4j.spi.kit;

import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * For engines only: one process's memory register. Global and local slots are numbered
 * independently, each from a free list (a deregistered id is reused first, LIFO),
 * so a global slot gets the same id on every process whatever local registrations each makes:
 * LPF requires global registrations and deregistrations to be collective and in the same
 * order, so every process's global free list evolves identically. A global slot is usable from
 * the sync after its registration ({@link #registerGlobal} records the superstep it activates
 * at); a deregistered id is reused by a later registration. The register's capacity is staged
 * ({@link #capacity()}): registrations beyond {@code capacity().current()} are refused by
 * {@link #checkRegistrable}, or under {@code lpf.capacity=grow} grow the register there.
 *
 * <p>Slot handles carry this register as their {@link Memslot#owner() owner}, so a slot of
 * another context (or another process) is recognised by identity. Not thread-safe: one process
 * writes it; other threads of a shared-memory engine may read {@link #globalSegment} of a peer
 * only between barriers. Cost: about 48 bytes per capacity entry; every lookup is O(1) and
 * allocation-free, registration allocates the handle.
 */
public final class SlotRegister implements SlotView {
    /** Heap bytes per capacity entry, for {@link StagedCapacity#entries}. */
    public static final long BYTES_PER_ENTRY = 96;
    /** The most entries a register can have. */
    public static final int MAX_ENTRIES = Integer.MAX_VALUE - 16;

    private final StagedCapacity capacity = new StagedCapacity("resizeMemoryRegister");
    private int used;

    private Memslot[] globalSlots = new Memslot[0];
    private MemorySegment[] globalSegments = new MemorySegment[0];
    /** Read-only twins of the registered segments: what puts read from. */
    private MemorySegment[] globalSources = new MemorySegment[0];
    private long[] globalActiveFrom = new long[0];
    private int[] freeGlobalIds = new int[0];
    private int freeGlobalCount;
    private int nextGlobalId;
    private Memslot[] localSlots = new Memslot[0];
    private MemorySegment[] localSegments = new MemorySegment[0];
    private MemorySegment[] localSources = new MemorySegment[0];
    private int[] freeLocalIds = new int[0];
    private int freeLocalCount;
    private int nextLocalId;
    /** Handles this register issued and that were deregistered (weak: a dropped handle costs nothing). */
    private final java.util.WeakHashMap<Memslot, Boolean> retired = new java.util.WeakHashMap<>();

    /** An empty register of capacity 0. */
    public SlotRegister() {}

    /** @return the staged capacity of this register (apply it at every sync) */
    public StagedCapacity capacity() { return capacity; }

    /** @return the number of slots registered now */
    public int used() { return used; }

    /**
     * {@code resizeMemoryRegister}: grows the arrays now if needed (OOM: nothing changed), and
     * stages the capacity for the next sync.
     */
    public void resize(int pid, long maxRegs) {
        int n = capacity.entries(pid, maxRegs, BYTES_PER_ENTRY, MAX_ENTRIES);
        if (n > globalSlots.length) {
            try {
                Memslot[] gs = Arrays.copyOf(globalSlots, n);
                MemorySegment[] gseg = Arrays.copyOf(globalSegments, n);
                MemorySegment[] gsrc = Arrays.copyOf(globalSources, n);
                long[] gact = Arrays.copyOf(globalActiveFrom, n);
                int[] gfree = Arrays.copyOf(freeGlobalIds, n);
                Memslot[] ls = Arrays.copyOf(localSlots, n);
                MemorySegment[] lseg = Arrays.copyOf(localSegments, n);
                MemorySegment[] lsrc = Arrays.copyOf(localSources, n);
                int[] lfree = Arrays.copyOf(freeLocalIds, n);
                globalSlots = gs; globalSegments = gseg; globalSources = gsrc; globalActiveFrom = gact;
                freeGlobalIds = gfree;
                localSlots = ls; localSegments = lseg; localSources = lsrc; freeLocalIds = lfree;
            } catch (OutOfMemoryError e) {
                throw capacity.outOfMemory(pid, maxRegs, e);
            }
        }
        capacity.stage(n); // shrinking (or staying) always succeeds
    }

    /**
     * The argument checks every engine makes before a registration: not null, register not full
     * (under {@code lpf.capacity=grow} a full register grows instead).
     *
     * @throws NullPointerException     if {@code segment} is null
     * @throws IllegalStateException    if the register is full
     * @throws org.lpf4j.LpfOutOfMemoryException if growing it found no memory (nothing changed)
     */
    public void checkRegistrable(MemorySegment segment, String call, int pid, int nprocs) {
        if (segment == null) throw new NullPointerException(call + " at pid " + pid + ": segment is null");
        if (used >= capacity.current() && capacity.grows()) {
            int staged = capacity.pending(), n = capacity.grownFor(used, MAX_ENTRIES);
            resize(pid, n); // lpf.capacity=grow: the arrays now (OOM: nothing changed), in force at once
            capacity.grow(n, staged);
        }
        if (used >= capacity.current()) {
            throw new IllegalStateException(call + "(" + segment + ") at pid " + pid + " of " + nprocs + ": "
                    + RequestChecks.registerFull(used, capacity.current()));
        }
    }

    /** An unstarted thread: segments it cannot access are confined to some other thread. */
    private static final Thread FOREIGN_THREAD = new Thread(() -> { }, "lpf-access-check");

    /**
     * The one check, for every engine, that a registered segment is accessible from any thread:
     * engines whose processes share a JVM copy on other processes' threads, and a program that
     * works on one engine must work on all, so engines that could use a thread-confined segment
     * (those that copy on the owner's thread) refuse it too. O(1); allocates only the exception.
     *
     * @throws IllegalArgumentException naming the call, the pid and the arenas that work if the
     *                                  segment is confined to one thread
     */
    public static void requireShareable(MemorySegment segment, String call, int pid) {
        if (segment.byteSize() > 0 && !segment.isAccessibleBy(FOREIGN_THREAD)) {
            throw new IllegalArgumentException(call + "(" + segment + ") at pid " + pid
                    + ": the segment is confined to one thread; engines may copy on other processes' threads"
                    + " (those whose processes share a JVM do), so register heap segments or segments of shared,"
                    + " global or automatic arenas");
        }
    }

    /**
     * {@code registerGlobal} as every engine makes it:
     * {@link #checkRegistrable}, {@link #requireShareable}, then {@link #registerGlobal}. O(1).
     *
     * @param superstep the current superstep: the slot is usable from {@code superstep + 1}
     */
    public Memslot registerGlobalShared(MemorySegment segment, long superstep, int pid, int nprocs) {
        checkShareable(segment, "registerGlobal", pid, nprocs);
        return registerGlobal(segment, superstep);
    }

    /**
     * {@code registerLocal} as every engine makes it:
     * {@link #checkRegistrable}, {@link #requireShareable}, then {@link #registerLocal}. O(1).
     */
    public Memslot registerLocalShared(MemorySegment segment, int pid, int nprocs) {
        checkShareable(segment, "registerLocal", pid, nprocs);
        return registerLocal(segment);
    }

    private void checkShareable(MemorySegment segment, String call, int pid, int nprocs) {
        checkRegistrable(segment, call, pid, nprocs);
        requireShareable(segment, call, pid);
    }

    /**
     * Registers a segment globally (after {@link #checkRegistrable}).
     *
     * @param superstep the current superstep: the slot is usable from {@code superstep + 1}
     */
    public Memslot registerGlobal(MemorySegment segment, long superstep) {
        int id = freeGlobalCount > 0 ? freeGlobalIds[--freeGlobalCount] : nextGlobalId++;
        Memslot slot = new Memslot(this, id, true, segment.byteSize());
        globalSlots[id] = slot;
        globalSegments[id] = segment;
        globalSources[id] = segment.asReadOnly();
        globalActiveFrom[id] = superstep + 1;
        used++;
        return slot;
    }

    /** Registers a segment locally (after {@link #checkRegistrable}); usable at once. */
    public Memslot registerLocal(MemorySegment segment) {
        int id = freeLocalCount > 0 ? freeLocalIds[--freeLocalCount] : nextLocalId++;
        Memslot slot = new Memslot(this, id, false, segment.byteSize());
        localSlots[id] = slot;
        localSegments[id] = segment;
        localSources[id] = segment.asReadOnly();
        used++;
        return slot;
    }

    /**
     * {@code deregister}: checks the slot and frees its id for reuse.
     *
     * @throws IllegalArgumentException naming the call if the slot is null, foreign or not registered
     */
    public void deregister(Memslot slot, int pid, long superstep) {
        if (slot == null || slot.owner() != this) {
            throw new IllegalArgumentException("deregister(" + slot + ") at pid " + pid + ": "
                    + (slot == null ? "slot is null" : slot.owner() instanceof SlotRegister ? "the slot belongs to another context"
                    : notIssued(slot)));
        }
        int id = slot.id();
        if (id < 0 || id >= (slot.isGlobal() ? globalSlots : localSlots).length) {
            throw new IllegalArgumentException("deregister(" + slot + ") at pid " + pid + ": " + describeUnusable(slot, superstep));
        }
        if ((slot.isGlobal() ? globalSlots : localSlots)[id] != slot) {
            throw new IllegalArgumentException("deregister(" + slot + ") at pid " + pid + ": "
                    + (retired.containsKey(slot) ? "already deregistered" : notIssued(slot)));
        }
        retired.put(slot, Boolean.TRUE);
        if (slot.isGlobal()) {
            globalSlots[id] = null;
            globalSegments[id] = null;
            globalSources[id] = null;
            freeGlobalIds[freeGlobalCount++] = id;
        } else {
            localSlots[id] = null;
            localSegments[id] = null;
            localSources[id] = null;
            freeLocalIds[freeLocalCount++] = id;
        }
        used--;
    }

    @Override
    public boolean isPending(Memslot slot, long superstep) {
        return slot != null && slot.owner() == this && slot.isGlobal() && slot.id() >= 0 && slot.id() < globalSlots.length
                && globalSlots[slot.id()] == slot && globalActiveFrom[slot.id()] > superstep;
    }

    /**
     * The area of a slot this process may use locally now, or null.
     *
     * @param source whether the area is read (a put's source): then its read-only twin
     */
    @Override
    public MemorySegment localArea(Memslot slot, long superstep, boolean source) {
        if (slot != null && slot.owner() == this) {
            int id = slot.id();
            if (slot.isGlobal()) {
                if (id >= 0 && id < globalSlots.length && globalSlots[id] == slot && globalActiveFrom[id] <= superstep) {
                    return source ? globalSources[id] : globalSegments[id];
                }
            } else if (id >= 0 && id < localSlots.length && localSlots[id] == slot) {
                return source ? localSources[id] : localSegments[id];
            }
        }
        return null;
    }

    /** @return whether {@code slot} is a global slot of this register usable as a remote end now */
    @Override
    public boolean isUsableGlobal(Memslot slot, long superstep) {
        if (slot == null || slot.owner() != this || !slot.isGlobal()) return false;
        int id = slot.id();
        return id >= 0 && id < globalSlots.length && globalSlots[id] == slot && globalActiveFrom[id] <= superstep;
    }

    /** @return whether {@code slot} is a local slot of this register (used as a remote end: refused) */
    @Override
    public boolean isOwnLocal(Memslot slot) {
        return slot != null && slot.owner() == this && !slot.isGlobal();
    }

    /**
     * The memory this process registered under global id {@code id} (the target of a remote put
     * or the source of a remote get), or null if none. Peers may call it between barriers.
     */
    public MemorySegment globalSegment(int id) {
        MemorySegment[] segs = globalSegments;
        return id >= 0 && id < segs.length ? segs[id] : null;
    }

    /**
     * The reason for a slot handle no register call returned (made with {@code new Memslot}).
     *
     * @param slot the handle
     * @return e.g. "global#0(8 B) was not issued by this context (...)"
     */
    public static String notIssued(Memslot slot) {
        return slot + " was not issued by this context (use the Memslot registerGlobal or registerLocal returned;"
                + " one made with new Memslot names nothing)";
    }

    /** @return why {@code slot} cannot be used now, e.g. "local#3(8 B) is deregistered" */
    @Override
    public String describeUnusable(Memslot slot, long superstep) {
        if (slot == null) return "is null";
        if (slot.owner() != this) {
            return slot.owner() instanceof SlotRegister ? slot + " belongs to another context (slots are per context and process)"
                    : notIssued(slot);
        }
        int id = slot.id();
        if (id < 0 || id >= (slot.isGlobal() ? globalSlots : localSlots).length) return notIssued(slot);
        if ((slot.isGlobal() ? globalSlots : localSlots)[id] != slot && !retired.containsKey(slot)) return notIssued(slot);
        if (slot.isGlobal()) {
            if (globalSlots[id] != slot) return slot + " is deregistered";
            if (globalActiveFrom[id] > superstep) {
                return slot + " was registered globally in this superstep and is usable only after the next sync";
            }
        } else if (localSlots[id] != slot) {
            return slot + " is deregistered";
        }
        return slot + " is valid";
    }
}
