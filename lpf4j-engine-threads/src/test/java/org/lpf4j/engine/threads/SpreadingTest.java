package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Lpf;
import org.lpf4j.engine.threads.group.Cpus;
import org.lpf4j.engine.threads.group.Waiting;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The slow mode of issue 14 made on purpose: both processes of a p = 2 section are confined to
 * one CPU, then given their full affinity back (the kernel leaves them where they are); the
 * engine's CPU spreading must separate them, and say it moved (the kernel alone might separate
 * them too, so the moves are what is asserted).
 */
@Timeout(60)
class SpreadingTest {
    private static final MethodHandle SET_AFFINITY, GET_AFFINITY;

    static {
        Linker linker = Linker.nativeLinker();
        FunctionDescriptor d = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
        SET_AFFINITY = Cpus.usable() ? linker.downcallHandle(linker.defaultLookup().find("sched_setaffinity").orElseThrow(), d) : null;
        GET_AFFINITY = Cpus.usable() ? linker.downcallHandle(linker.defaultLookup().find("sched_getaffinity").orElseThrow(), d) : null;
    }

    /** @return whether the kernel accepted the mask (a sandbox may refuse affinity changes) */
    private static boolean setAffinity(MemorySegment mask) {
        try {
            return (int) SET_AFFINITY.invokeExact(0, mask.byteSize(), mask) == 0;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    @Test
    void processesConfinedToOneCpuAreSeparatedAgain() {
        assumeTrue(Cpus.usable(), "needs Linux and native access");
        assumeTrue(Cpus.allowed() >= 2 && Runtime.getRuntime().availableProcessors() >= 2, "needs two CPUs");
        long[] moves = new long[2];
        java.util.concurrent.atomic.AtomicBoolean refused = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicLongArray cpuAtEnd = new AtomicLongArray(2);
        Lpf.root("threads").exec(2, ctx -> {
            Waiting w = ((ThreadsContext) ctx).team.barrier.waiting();
            int me = ctx.pid();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment full = arena.allocate(128, 8), one = arena.allocate(128, 8);
                assertEquals(0, (int) GET_AFFINITY.invokeExact(0, 128L, full));
                int first = 0;
                while ((full.getAtIndex(ValueLayout.JAVA_LONG, first >>> 6) & (1L << (first & 63))) == 0) first++;
                one.setAtIndex(ValueLayout.JAVA_LONG, first >>> 6, 1L << (first & 63));
                if (!setAffinity(one)) { // both on the first allowed CPU
                    refused.set(true);
                    return;
                }
                for (int i = 0; i < 200; i++) ctx.sync();
                assertEquals(first, Cpus.current());
                long before = w.moves(me);
                assertTrue(setAffinity(full)); // allowed everywhere again, but still together
                long until = System.nanoTime() + 20_000_000_000L;
                int rounds = 0;
                while (true) {
                    for (int i = 0; i < 1000; i++) ctx.sync();
                    cpuAtEnd.set(me, Cpus.current());
                    ctx.sync();
                    boolean apart = cpuAtEnd.get(0) != cpuAtEnd.get(1);
                    long total = w.moves(0) + w.moves(1);
                    ctx.sync(); // both decide on the same values
                    if ((apart && total > 0) || System.nanoTime() > until || ++rounds > 20_000) break;
                }
                moves[me] = w.moves(me) - before;
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        });
        assumeTrue(!refused.get(), "this system refuses sched_setaffinity");
        assertTrue(moves[0] + moves[1] > 0, "no process moved off the shared CPU");
        assertNotEquals(cpuAtEnd.get(0), cpuAtEnd.get(1), "the processes still share CPU " + cpuAtEnd.get(0));
    }
}
