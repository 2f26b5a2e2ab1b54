package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hot path allocates nothing: put (buffered and unbuffered), get and sync, measured per
 * thread with {@code com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes} over
 * 20 000 supersteps after a warm-up. One object per operation would show as hundreds of
 * kilobytes; the bound of 1 KiB in total (the least of three windows) leaves room only for the
 * JVM's own one-off allocations (e.g. on a deoptimisation), not for anything per superstep.
 */
@Timeout(60)
class AllocationTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 8})
    void putGetAndSyncAllocateNothing(int p) {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        AtomicLongArray allocated = new AtomicLongArray(p);
        ThreadsEngine.root().exec(p, ctx -> {
            int s = ctx.pid();
            MemorySegment mem = Arena.ofAuto().allocate(8192);
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(4);
            ctx.sync();
            Memslot slot = ctx.registerGlobal(mem);
            ctx.sync();
            int next = (s + 1) % p, prev = (s + p - 1) % p;
            allocated.set(s, Long.MAX_VALUE);
            for (int phase = 0; phase < 4; phase++) { // warm up, then three measured windows
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 20_000; i++) {
                    ctx.put(slot, 0, next, slot, 4096, 8);        // buffered
                    ctx.put(slot, 8, next, slot, 4104, 1024);     // unbuffered
                    ctx.get(prev, slot, 2048, slot, 6144, 16);
                    ctx.sync();
                    ctx.sync();                                    // empty
                }
                long bytes = mx.getCurrentThreadAllocatedBytes() - before;
                if (phase > 0 && bytes < allocated.get(s)) allocated.set(s, bytes);
            }
            ctx.deregister(slot);
        });
        for (int k = 0; k < p; k++) {
            long bytes = allocated.get(k);
            assertTrue(bytes <= 1024, bytes + " bytes allocated by pid " + k + " in 20 000 supersteps");
        }
    }

    /**
     * A put longer than {@link org.lpf4j.spi.kit.BulkCopy#NATIVE_PIECE} is copied in pieces, a slice
     * pair and a downcall each: once compiled they allocate nothing either (one object per piece
     * would show as hundreds of KiB per window). A long warm-up, so that the copy loop is compiled.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void largePutsCopiedInPiecesAllocateNothing(int p) {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        AtomicLongArray allocated = new AtomicLongArray(p);
        long size = 3 * org.lpf4j.spi.kit.BulkCopy.NATIVE_PIECE + 13;
        ThreadsEngine.root().exec(p, ctx -> {
            int s = ctx.pid();
            MemorySegment mem = Arena.ofAuto().allocate(2 * size + 64);
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot slot = ctx.registerGlobal(mem);
            ctx.sync();
            int next = (s + 1) % p;
            allocated.set(s, Long.MAX_VALUE);
            for (int window = 0; window < 4; window++) { // warm up, then three measured windows
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0, n = window == 0 ? 20_000 : 2_000; i < n; i++) {
                    ctx.put(slot, 3, next, slot, size + 40, size);
                    ctx.sync();
                }
                long bytes = mx.getCurrentThreadAllocatedBytes() - before;
                if (window > 0 && bytes < allocated.get(s)) allocated.set(s, bytes);
            }
            ctx.deregister(slot);
        });
        for (int k = 0; k < p; k++) {
            long bytes = allocated.get(k);
            assertTrue(bytes <= 1024, bytes + " bytes allocated by pid " + k + " in 2 000 supersteps of " + size + "-byte puts");
        }
    }
}
