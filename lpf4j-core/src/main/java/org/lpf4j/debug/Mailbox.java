package org.lpf4j.debug;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The debug layer's own memory in the engine, in a section of more than one process: one global
 * slot per process through which the processes exchange, at each sync and through the wrapped
 * engine's public API only (put, get, sync, registerGlobal), what the cross-process checks need.
 * So the checks see the whole job on every engine, whichever processes share a JVM.
 *
 * <p>Layout: the records every process put here in the last exchange ({@code p × }{@link #RECORD}
 * longs, each followed by room for {@link #inlineBytes()} bytes of descriptors that came with
 * it), the verdicts ({@code p × }{@link #VERDICT} longs), this process's outgoing records (with
 * their room) and verdict (the sources of its puts), then a free area: this process's
 * descriptors that did not fit beside their record and its collective calls, followed by what it
 * fetched from others. The slot grows
 * collectively (every process calls {@link #ensure} with the same size, known to all after the
 * records came in), doubling; its id is the same on every process, like any global slot's.
 */
final class Mailbox {
    /** Longs of the record each process puts to every process at a sync. */
    static final int RECORD = 13;
    /** Fields of a record. */
    static final int KIND = 0, STEP = 1, COUNT_TO = 2, DESC_OFFSET = 3, DESC_BYTES = 4, OUT_BYTES = 5, MAX_TO = 6,
            TOTAL = 7, COLL_HASH = 8, COLL_COUNT = 9, COLL_OFFSET = 10, COLL_BYTES = 11, LOCAL_REPORT = 12;
    /** Longs of a verdict: has a report, its check's ordinal, its message's length in bytes. */
    static final int VERDICT = 3;
    /** Engine registrations the layer needs beyond the user's: the mailbox and its successor while it grows. */
    static final long REGISTRATIONS = 2;

    private final Context engine;
    private final int pid;
    private final int nprocs;
    /** Bytes of descriptors a record carries (64 KiB over all origins: none from a few hundred processes on). */
    private final long inline;
    private MemorySegment memory;
    private Memslot slot;

    /**
     * Registers the mailbox; the engine's register must hold it (resized and synced by the
     * caller). Every process of the section calls it at the same point (collective).
     */
    Mailbox(Context engine) {
        this.engine = engine;
        this.pid = engine.pid();
        this.nprocs = engine.nprocs();
        this.inline = (65536L / nprocs) & ~7L;
        long bytes = 8L * free() + 1024;
        memory = MemorySegment.ofArray(new long[(int) (bytes / 8)]);
        slot = engine.registerGlobal(memory);
    }

    /** @return the queue entries the layer's supersteps need beyond nothing (they carry no user request) */
    static long queueEntries(int nprocs) { return nprocs + 2L; }

    /** @return the byte offset of the free area, where a process's descriptors start */
    long freeStart() { return 8L * free(); }

    /** @return the bytes of descriptors that may travel beside a record */
    long inlineBytes() { return inline; }

    /** In longs. */
    private long free() { return (outVerdict() + 8L * VERDICT) / 8; }

    private long stride() { return 8L * RECORD + inline; }

    private long outRecord(int target) { return nprocs * stride() + 8L * nprocs * VERDICT + target * stride(); }

    private long outVerdict() { return 2 * nprocs * stride() + 8L * nprocs * VERDICT; }

    private long inRecord(int origin) { return origin * stride(); }

    private long inVerdict(int origin) { return nprocs * stride() + 8L * origin * VERDICT; }

    /** Writes descriptors for {@code target} beside its record (at most {@link #inlineBytes()}). */
    void setInline(int target, byte[] descriptors) { write(outRecord(target) + 8L * RECORD, descriptors); }

    /** @return the byte offset of the descriptors that came beside {@code origin}'s record */
    long inlineFrom(int origin) { return inRecord(origin) + 8L * RECORD; }

    /** Sets a field of the record for {@code target}. */
    void setRecord(int target, int field, long value) {
        memory.set(ValueLayout.JAVA_LONG_UNALIGNED, outRecord(target) + 8L * field, value);
    }

    /** @return a field of the record {@code origin} sent in the last exchange */
    long record(int origin, int field) {
        return memory.get(ValueLayout.JAVA_LONG_UNALIGNED, inRecord(origin) + 8L * field);
    }

    /**
     * Queues the put of each outgoing record to its target, with {@code inlineSent[t]} bytes of
     * descriptors beside it (the next engine sync delivers them).
     */
    void sendRecords(long[] inlineSent) {
        for (int t = 0; t < nprocs; t++) engine.put(slot, outRecord(t), t, slot, inRecord(pid), 8L * RECORD + inlineSent[t]);
    }

    /** Sets this process's verdict (it has a report) and queues its put to every process. */
    void sendVerdict(int check, long messageBytes) {
        long at = outVerdict();
        memory.set(ValueLayout.JAVA_LONG_UNALIGNED, at, 1);
        memory.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, check);
        memory.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 16, messageBytes);
        for (int t = 0; t < nprocs; t++) engine.put(slot, at, t, slot, inVerdict(pid), 8L * VERDICT);
    }

    /** Zeroes the verdicts that came in (a process that has none sends none). */
    void clearVerdicts() { memory.asSlice(inVerdict(0), 8L * nprocs * VERDICT).fill((byte) 0); }

    /** @return field {@code i} (0 report, 1 check, 2 message bytes) of {@code origin}'s verdict */
    long verdict(int origin, int i) {
        return memory.get(ValueLayout.JAVA_LONG_UNALIGNED, inVerdict(origin) + 8L * i);
    }

    /**
     * Makes the mailbox at least {@code bytes} long: collective, every process passes the same
     * value. Growing registers a larger slot, syncs (it is usable after the sync) and deregisters
     * the old one. The exchange areas (what came in) are copied; the free area is not.
     *
     * @param sync the engine sync of the layer (it translates failures)
     */
    void ensure(long bytes, Runnable sync) {
        if (bytes <= memory.byteSize()) return;
        long n = Math.max(2 * memory.byteSize(), bytes);
        if (n / 8 + 1 > Integer.MAX_VALUE - 16) {
            throw new OutOfMemoryError("lpf debug: the layer's exchange needs " + bytes + " bytes, more than one array holds");
        }
        MemorySegment bigger = MemorySegment.ofArray(new long[(int) ((n + 7) / 8)]);
        MemorySegment.copy(memory, 0, bigger, 0, freeStart());
        Memslot next = engine.registerGlobal(bigger);
        sync.run();
        engine.deregister(slot);
        memory = bigger;
        slot = next;
    }

    /** Writes bytes at a byte offset of the mailbox. */
    void write(long offset, byte[] bytes) {
        MemorySegment.copy(bytes, 0, memory, ValueLayout.JAVA_BYTE, offset, bytes.length);
    }

    /** Writes a long at a byte offset of the mailbox. */
    void writeLong(long offset, long value) { memory.set(ValueLayout.JAVA_LONG_UNALIGNED, offset, value); }

    /** @return the long at a byte offset */
    long readLong(long offset) { return memory.get(ValueLayout.JAVA_LONG_UNALIGNED, offset); }

    /** @return the bytes at a byte offset */
    byte[] read(long offset, long length) {
        return memory.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    /** @return the UTF-8 text at a byte offset */
    String readText(long offset, long length) { return new String(read(offset, length), StandardCharsets.UTF_8); }

    /** Queues a get of {@code length} bytes of {@code origin}'s mailbox into this one. */
    void fetch(int origin, long remoteOffset, long localOffset, long length) {
        if (length > 0) engine.get(origin, slot, remoteOffset, slot, localOffset, length);
    }

    /** Deregisters the mailbox (collective: the section's end). */
    void release() { engine.deregister(slot); }
}
