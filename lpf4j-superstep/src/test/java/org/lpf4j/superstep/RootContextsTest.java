package org.lpf4j.superstep;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.CrossJvmObjects;

import java.lang.foreign.Arena;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A program may ask for the root context as often as it likes ({@code Bsplib.run} does each time):
 * the one-process contexts of roots it no longer holds are closed at later calls, so their native
 * buffers do not pile up (before, every root's stayed for the JVM's life). A root still held keeps
 * working.
 */
@Timeout(60)
class RootContextsTest {
    /** Rank 0 of a job of one JVM, whose one-process contexts are the in-memory engine's. */
    private static final class OneRank extends JobRuntime {
        OneRank() { super("memory"); }

        @Override protected int rank() { return 0; }

        @Override protected int size() { return 1; }

        @Override
        protected Context selfContext() {
            return new MemoryContext(new MemoryJob(1, 10_000, 1), 0, Args.NONE, CrossJvmObjects.forCurrentThread(),
                    MemoryContext.settings(16, "auto", 64), new ConcurrentHashMap<>());
        }

        @Override protected String rootName() { return "OneRank"; }

        @Override protected int newSection(int n) { return 1; }

        @Override protected FatalException runSection(int n, int section, Spmd spmd, Args args, int share) { return null; }

        @Override protected void sendCommand(int dest, byte[] command) {}

        @Override protected byte[] receiveCommand() { throw new UnsupportedOperationException(); }

        @Override protected void release(boolean othersTold) {}

        @Override protected void leave() {}
    }

    @Test
    void theContextsOfRootsNoLongerHeldAreClosedAtLaterCalls() throws InterruptedException {
        OneRank runtime = new OneRank();
        Context kept = runtime.root();
        for (int i = 0; i < 500; i++) {
            Context dropped = runtime.root();
            dropped.resizeMessageQueue(4); // buffers of its own
            dropped.sync();
        }
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (runtime.openRoots() > 50 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
            runtime.root(); // closes what the GC found since
        }
        assertTrue(runtime.openRoots() <= 50, runtime.openRoots() + " roots' contexts still open (501 made, and one per wait)");
        // The root still held works: register, put to itself, sync.
        var memory = Arena.ofAuto().allocate(16);
        memory.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 42);
        kept.resizeMemoryRegister(1);
        kept.resizeMessageQueue(1);
        kept.sync();
        var slot = kept.registerGlobal(memory);
        kept.sync();
        kept.put(slot, 0, 0, slot, 8, 8);
        kept.sync();
        assertEquals(42, memory.get(java.lang.foreign.ValueLayout.JAVA_LONG, 8));
    }
}
