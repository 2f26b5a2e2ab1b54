package org.lpf4j;

/**
 * A registered memory area (the C API's {@code lpf_memslot_t}): the handle that names the source
 * or destination of a {@link Context#put put} or {@link Context#get get}.
 *
 * <p>A memslot belongs to the context that registered it and is valid from its registration
 * (local slots) or from the sync after its registration (global slots) until
 * {@link Context#deregister(Memslot)}. A global slot names the memory that <em>each</em> process
 * registered in the same collective call, so the same handle addresses the matching area on
 * every process. Handles must not be communicated.
 *
 * <p>Engines create memslots; users only pass them back. This class is immutable and costs
 * nothing to hold.
 */
public final class Memslot {
    private final Object owner;
    private final int id;
    private final boolean global;
    private final long size;

    /**
     * <b>SPI, for engines only</b> (engines get slots from {@link org.lpf4j.spi.kit.SlotRegister};
     * this constructor is not part of the programming interface): a slot handle. Programs never
     * construct memslots; one made outside an engine names nothing. The constructor checks
     * nothing: an engine must validate every slot it
     * is handed (its {@link #owner()} is the engine's own state, its {@link #id()} is in range and
     * currently registered) before using the id, and reject it otherwise with an exception naming
     * the call. Costs one small allocation.
     *
     * @param owner the engine's per-process context state that registered it (identity is the
     *              check that a slot is used only with its own context)
     * @param id     the engine's slot index (global and local slots number independently)
     * @param global whether it was registered with {@code registerGlobal}
     * @param size   the local registered size in bytes
     */
    public Memslot(Object owner, int id, boolean global, long size) {
        this.owner = owner;
        this.id = id;
        this.global = global;
        this.size = size;
    }

    /** @return the engine state that registered this slot (for engines) */
    public Object owner() { return owner; }

    /** @return the engine's index of this slot; global indices agree on all processes */
    public int id() { return id; }

    /** @return whether this slot was registered globally (and so may be addressed remotely) */
    public boolean isGlobal() { return global; }

    /** @return the size in bytes of the area this process registered */
    public long size() { return size; }

    @Override
    public String toString() {
        return (global ? "global#" : "local#") + id + "(" + size + " B)";
    }
}
