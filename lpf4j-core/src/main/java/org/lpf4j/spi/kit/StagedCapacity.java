package org.lpf4j.spi.kit;

import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.spi.CoreParameters;

/**
 * For engines only: a capacity (of the message queue or the memory register) as LPF stages it.
 * {@code resize} asks for a value that becomes {@link #current()} at the next sync
 * ({@link #applyAtSync()}); growing may allocate at the call (an engine reserves first, then
 * {@link #stage}s), shrinking takes effect at the sync too, so requests made under the larger
 * value stay valid until then. {@link #entries} refuses, before anything is allocated, a
 * capacity that cannot exist, and {@link #outOfMemory} turns an {@link OutOfMemoryError} into
 * the LPF answer: {@link LpfOutOfMemoryException} with nothing changed.
 *
 * <p>Under {@code lpf.capacity=grow} ({@link #grows()}, read once when the object is made) a
 * request beyond {@link #current()} does not fail: the engine reserves {@link #grownFor} entries
 * on the spot and calls {@link #grow}, which puts them in force at once. The engine tests
 * {@code used >= current()} first, so the normal path costs one comparison and allocates
 * nothing. Not thread-safe (one process's state); O(1), no allocation.
 */
public final class StagedCapacity {
    private final String call;
    private int current;
    private int pending;
    private final boolean grows;

    /**
     * Reads {@code lpf.capacity} ({@link CoreParameters#CAPACITY}) once.
     *
     * @param call the user call that resizes it, e.g. {@code "resizeMessageQueue"} (for messages)
     */
    public StagedCapacity(String call) {
        this.call = call;
        this.grows = "grow".equals(CoreParameters.CAPACITY.get());
    }

    /** @return whether a request beyond the capacity grows it ({@code lpf.capacity=grow}) instead of failing */
    public boolean grows() { return grows; }

    /**
     * @param used the entries in use, at least {@link #current()}
     * @param max  the most entries the engine's structures can index
     * @return the capacity to grow to: twice the current one, at least {@code used + 1}, at most {@code max}
     */
    public int grownFor(int used, int max) {
        return (int) Math.min(max, Math.max(used + 1L, 2L * current));
    }

    /**
     * Puts {@code entries} (already reserved by the engine) in force now, under
     * {@code lpf.capacity=grow}; a larger capacity staged for the next sync stays staged, a
     * smaller one (a shrink) gives way to the grown one, which the program evidently needs.
     *
     * @param entries the grown capacity
     * @param staged  {@link #pending()} as it was before the engine reserved the entries
     */
    public void grow(int entries, int staged) {
        current = entries;
        pending = Math.max(entries, staged);
    }

    /** @return the capacity in force in this superstep */
    public int current() { return current; }

    /** @return the capacity that will be in force after the next sync */
    public int pending() { return pending; }

    /**
     * Checks a requested capacity and converts it to entries, before anything is allocated.
     *
     * @param pid            the calling process (for the message)
     * @param requested      the user's argument
     * @param bytesPerEntry  about how many heap bytes one entry costs
     * @param maxEntries     the most entries the engine's structures can index
     * @return {@code requested} as an int
     * @throws IllegalArgumentException  if {@code requested} is negative
     * @throws LpfOutOfMemoryException   if it exceeds {@code maxEntries} or this JVM's heap (nothing changed)
     */
    public int entries(int pid, long requested, long bytesPerEntry, int maxEntries) {
        if (requested < 0) throw new IllegalArgumentException(call + "(" + requested + ") at pid " + pid + ": negative capacity");
        long heap = Runtime.getRuntime().maxMemory();
        if (requested > maxEntries || requested > heap / bytesPerEntry) {
            throw new LpfOutOfMemoryException(call + "(" + requested + ") at pid " + pid + ": needs about "
                    + (requested > Long.MAX_VALUE / bytesPerEntry ? "more than 2^63" : String.valueOf(requested * bytesPerEntry))
                    + " bytes (at most " + maxEntries + " entries), this JVM's heap is " + heap
                    + " bytes; nothing changed", null);
        }
        return (int) requested;
    }

    /**
     * @param pid       the calling process
     * @param requested the user's argument
     * @param e         the error the engine's reservation raised
     * @return the exception to throw: the reservation had no effect
     */
    public LpfOutOfMemoryException outOfMemory(int pid, long requested, OutOfMemoryError e) {
        return new LpfOutOfMemoryException(call + "(" + requested + ") at pid " + pid + ": out of memory", e);
    }

    /** @param entries the capacity in force after the next sync (already reserved by the engine) */
    public void stage(int entries) { pending = entries; }

    /** Makes the staged capacity the current one: call once at the end of every sync. */
    public void applyAtSync() { current = pending; }
}
