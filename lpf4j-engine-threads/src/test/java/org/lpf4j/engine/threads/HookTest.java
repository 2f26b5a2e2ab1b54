package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** lpf_hook on a group of user threads: each thread is one process with its own args. */
@Timeout(60)
class HookTest {

    /** Starts n user threads that each hook the same section, and returns what each threw. */
    private static Throwable[] hookFromThreads(int n, ThreadsEngine.Group group, MemorySegment[] perThread,
                                               org.lpf4j.Spmd spmd) throws InterruptedException {
        AtomicReferenceArray<Throwable> thrown = new AtomicReferenceArray<>(n);
        Thread[] threads = new Thread[n];
        for (int k = 0; k < n; k++) {
            final int pid = k;
            threads[k] = new Thread(() -> {
                try {
                    Lpf.hook(group.member(pid), spmd, Args.of(perThread[pid], perThread[pid]));
                } catch (Throwable t) {
                    thrown.set(pid, t);
                }
            }, "user-thread-" + k);
            threads[k].start();
        }
        for (Thread t : threads) t.join(30_000);
        Throwable[] result = new Throwable[n];
        for (int k = 0; k < n; k++) result[k] = thrown.get(k);
        return result;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void userThreadsHookOneSectionAndEachGetsItsOwnArgs(int n) throws InterruptedException {
        ThreadsEngine.Group group = ThreadsEngine.group(n);
        MemorySegment[] io = new MemorySegment[n];
        for (int k = 0; k < n; k++) {
            io[k] = Arena.ofShared().allocate(ValueLayout.JAVA_LONG, 2);
            io[k].set(ValueLayout.JAVA_LONG, 0, 10L * k);
        }
        for (int round = 0; round < 3; round++) { // a group runs sections one after another
            final int r = round;
            Throwable[] thrown = hookFromThreads(n, group, io, ctx -> {
                assertEquals(n, ctx.nprocs());
                MemorySegment mine = ctx.args().input();
                assertEquals(10L * ctx.pid(), mine.get(ValueLayout.JAVA_LONG, 0), "hook passes each process its own input");
                ctx.resizeMemoryRegister(1);
                ctx.resizeMessageQueue(1);
                ctx.sync();
                Memslot slot = ctx.registerGlobal(mine);
                ctx.sync();
                ctx.put(slot, 0, (ctx.pid() + 1) % n, slot, 8, 8);
                ctx.sync();
                ctx.deregister(slot);
                assertEquals(10L * ((ctx.pid() + n - 1) % n), mine.get(ValueLayout.JAVA_LONG, 8), "round " + r);
            });
            for (int k = 0; k < n; k++) assertNull(thrown[k], "thread " + k + " threw " + thrown[k]);
            for (int k = 0; k < n; k++) assertEquals(10L * ((k + n - 1) % n), io[k].get(ValueLayout.JAVA_LONG, 8));
        }
    }

    @Test
    void aFailingHookedProcessFailsEveryHook() throws InterruptedException {
        int n = 3;
        ThreadsEngine.Group group = ThreadsEngine.group(n);
        MemorySegment[] io = {MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL};
        Throwable[] thrown = hookFromThreads(n, group, io, ctx -> {
            if (ctx.pid() == 1) throw new ArithmeticException("pid 1 fails");
            ctx.sync();
        });
        for (int k = 0; k < n; k++) {
            FatalException e = assertInstanceOf(FatalException.class, thrown[k], "thread " + k);
            assertInstanceOf(ArithmeticException.class, e.getCause());
        }
    }

    @Test
    void memberPidsAreChecked() {
        assertThrows(IndexOutOfBoundsException.class, () -> ThreadsEngine.group(2).member(2));
        assertThrows(IllegalArgumentException.class, () -> ThreadsEngine.group(0));
    }
}
