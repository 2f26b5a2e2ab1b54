package org.lpf4j.spi.kit;

import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;

/**
 * For engines and decorators only: what {@link RequestChecks} needs to know about one
 * process's registered slots in the current superstep. {@link SlotRegister} is the engines'
 * implementation; the debug layer implements it over its own records. All methods are O(1)
 * queries without side effects.
 */
public interface SlotView {
    /**
     * @param source whether the area is read (then an engine may return a read-only view)
     * @return the area of {@code slot} this process may use locally in {@code superstep}, or null
     */
    MemorySegment localArea(Memslot slot, long superstep, boolean source);

    /** @return whether {@code slot} is a global slot of this process usable as a remote end now */
    boolean isUsableGlobal(Memslot slot, long superstep);

    /** @return whether {@code slot} is one of this process's local slots */
    boolean isOwnLocal(Memslot slot);

    /** @return whether {@code slot} is registered globally but active only after the next sync */
    boolean isPending(Memslot slot, long superstep);

    /** @return why {@code slot} cannot be used now, starting with the slot, e.g. "local#3(8 B) is deregistered" */
    String describeUnusable(Memslot slot, long superstep);
}
