package org.lpf4j.debug;

import org.lpf4j.Memslot;
import org.lpf4j.spi.kit.SlotRegister;
import org.lpf4j.spi.kit.SlotView;

import java.lang.foreign.MemorySegment;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The live registrations of one process as the debug layer knows them ({@link SlotInfo}: memory,
 * first usable superstep, site), by handle and, for global slots, by id; what the argument rules
 * ask of them ({@link SlotView}); and why a handle it does not know is unknown (another context's,
 * never issued, or deregistered through this layer). O(1) per look-up (hash maps); allocates an
 * entry per registration (the debug layer is not on the hot path). Used by its process's thread
 * only.
 */
final class Registrations implements SlotView {
    /** The engine's owner object of this process's slots, learnt from the first registration. */
    private Object slotOwner;
    /** Handles deregistered through this layer (weak: a dropped handle costs nothing). */
    private final WeakHashMap<Memslot, Boolean> retired = new WeakHashMap<>();
    private final Map<Memslot, SlotInfo> slots = new IdentityHashMap<>();
    private final Map<Integer, SlotInfo> globalsById = new HashMap<>();

    /** @return the registration of {@code slot}, or null if it is not live here */
    SlotInfo get(Memslot slot) { return slots.get(slot); }

    /** @return the live registrations */
    Collection<SlotInfo> live() { return slots.values(); }

    /** @return the live global registrations by slot id (a view, for the target's checks) */
    Map<Integer, SlotInfo> globalsById() { return globalsById; }

    /** Records a registration the engine accepted. */
    void add(Memslot slot, SlotInfo info, boolean global) {
        slotOwner = slot.owner();
        slots.put(slot, info);
        if (global) globalsById.put(slot.id(), info);
    }

    /** Forgets a registration the engine released; its handle is remembered as deregistered. */
    void remove(Memslot slot) {
        slots.remove(slot);
        retired.put(slot, Boolean.TRUE);
        if (slot.isGlobal()) globalsById.remove(slot.id());
    }

    /** @return why {@code slot}, not live here, cannot be deregistered */
    String whyUnknown(Memslot slot) {
        return slot.owner() != slotOwner
                ? (slot.owner() instanceof SlotRegister ? slot + " belongs to another context" : SlotRegister.notIssued(slot))
                : retired.containsKey(slot) ? slot + " is already deregistered" : SlotRegister.notIssued(slot);
    }

    // ---- this process's registrations as the argument rules see them ----

    @Override public MemorySegment localArea(Memslot slot, long superstep, boolean source) {
        SlotInfo info = slot == null ? null : slots.get(slot);
        return info == null || info.activeFrom > superstep ? null : info.segment;
    }

    @Override public boolean isUsableGlobal(Memslot slot, long superstep) {
        SlotInfo info = slot == null ? null : slots.get(slot);
        return info != null && slot.isGlobal() && info.activeFrom <= superstep;
    }

    @Override public boolean isOwnLocal(Memslot slot) {
        return slot != null && !slot.isGlobal() && slots.get(slot) != null;
    }

    @Override public boolean isPending(Memslot slot, long superstep) {
        SlotInfo info = slot == null ? null : slots.get(slot);
        return info != null && info.activeFrom > superstep;
    }

    @Override public String describeUnusable(Memslot slot, long superstep) {
        if (slot == null) return "is null";
        SlotInfo info = slots.get(slot);
        if (info == null) {
            return slot.owner() != slotOwner && slot.owner() instanceof SlotRegister
                    ? slot + " belongs to another context (slots are per context and process)"
                    : slot.owner() != slotOwner ? SlotRegister.notIssued(slot)
                    : retired.containsKey(slot) ? slot + " is deregistered" : SlotRegister.notIssued(slot);
        }
        return slot + " was registered globally at " + info.site + " in this superstep; it is usable only after the next sync";
    }
}
