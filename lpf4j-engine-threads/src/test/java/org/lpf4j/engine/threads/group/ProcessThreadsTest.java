package org.lpf4j.engine.threads.group;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.LpfOutOfMemoryException;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ProcessThreads}: everyone runs or nobody does, every thread is joined, one process's run. */
@Timeout(60)
class ProcessThreadsTest {
    private static final int N = 5;

    /** Makes threads whose {@code failAt}-th start (1-based; 0: none) throws {@code failure}, after the earlier ones had time to run. */
    private static final class FailingStarts implements ThreadFactory {
        final List<Thread> made = new CopyOnWriteArrayList<>();
        private final int failAt;
        private final Error failure;
        private int starts;

        FailingStarts(int failAt, Error failure) {
            this.failAt = failAt;
            this.failure = failure;
        }

        @Override
        public Thread newThread(Runnable body) {
            Thread t = new Thread(body) {
                @Override
                public synchronized void start() {
                    if (++starts == failAt) {
                        try {
                            Thread.sleep(50); // a started thread that did not wait would run its process now
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                        throw failure;
                    }
                    super.start();
                }
            };
            made.add(t);
            return t;
        }
    }

    @Test
    void everyProcessRunsOnceProcess0OnTheCallerTheOthersOnNamedDaemonThreads() {
        AtomicReferenceArray<Thread> ran = new AtomicReferenceArray<>(N);
        AtomicInteger runs = new AtomicInteger();
        ProcessThreads.runAll(N, i -> "test-pid" + i, pid -> {
            runs.incrementAndGet();
            ran.set(pid, Thread.currentThread());
        }, "exec(p=5)");
        assertEquals(N, runs.get());
        assertSame(Thread.currentThread(), ran.get(0));
        for (int pid = 1; pid < N; pid++) {
            Thread t = ran.get(pid);
            assertEquals("test-pid" + pid, t.getName());
            assertTrue(t.isDaemon());
            assertFalse(t.isAlive(), "joined before runAll returned");
        }
    }

    @Test
    void everyThreadIsJoinedEvenWhenProcess0Throws() {
        FailingStarts factory = new FailingStarts(0, null);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ProcessThreads.runAll(N, i -> "t" + i, pid -> {
            if (pid == 0) throw new IllegalStateException("pid 0");
            try {
                Thread.sleep(50);
            } catch (InterruptedException x) {
                throw new AssertionError(x);
            }
        }, "exec(p=5)", factory));
        assertEquals("pid 0", e.getMessage());
        assertEquals(N - 1, factory.made.size());
        for (Thread t : factory.made) assertFalse(t.isAlive());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void ifTheKthStartRunsOutOfMemoryNobodyRuns(int k) {
        FailingStarts factory = new FailingStarts(k, new OutOfMemoryError("unable to create native thread"));
        AtomicInteger runs = new AtomicInteger();
        LpfOutOfMemoryException e = assertThrows(LpfOutOfMemoryException.class,
                () -> ProcessThreads.runAll(N, i -> "t" + i, pid -> runs.incrementAndGet(), "exec(p=5)", factory));
        assertEquals("exec(p=5): could start only " + k + " threads; nothing ran", e.getMessage());
        assertInstanceOf(OutOfMemoryError.class, e.getCause());
        assertEquals(0, runs.get(), "nobody ran, not even pid 0");
        for (Thread t : factory.made) assertFalse(t.isAlive(), "the started threads were joined");
    }

    @Test
    void ifAStartFailsOtherwiseNobodyRunsEither() {
        FailingStarts factory = new FailingStarts(3, new InternalError("no threads today"));
        AtomicInteger runs = new AtomicInteger();
        FatalException e = assertThrows(FatalException.class,
                () -> ProcessThreads.runAll(N, i -> "t" + i, pid -> runs.incrementAndGet(), "exec(p=5)", factory));
        assertEquals("exec(p=5): could not start its threads; nothing ran", e.getMessage());
        assertInstanceOf(InternalError.class, e.getCause());
        assertEquals(0, runs.get());
        for (Thread t : factory.made) assertFalse(t.isAlive());
    }

    @Test
    void aFactoryThatRefusesAThreadStartsNobody() {
        AtomicInteger runs = new AtomicInteger(), made = new AtomicInteger();
        ThreadFactory refusing = r -> made.incrementAndGet() < 2 ? new Thread(r) : null; // null: rejected
        assertThrows(FatalException.class,
                () -> ProcessThreads.runAll(N, i -> "t" + i, pid -> runs.incrementAndGet(), "exec(p=5)", refusing));
        assertEquals(0, runs.get());
    }

    @Test
    void runAttachesTheThreadAndReturnsWhatTheFunctionThrew() {
        ProcessLedger ledger = new ProcessLedger(2, new DisseminationBarrier(new ProcessThreadsTest.Group(), 2));
        Map<String, Object> answers = Map.of("pid", 1, "nprocs", 2, "superstep", 0L);
        Context ctx = (Context) Proxy.newProxyInstance(Context.class.getClassLoader(), new Class<?>[] {Context.class},
                (proxy, method, args) -> answers.get(method.getName()));
        IllegalStateException boom = new IllegalStateException("boom");
        assertSame(boom, ProcessThreads.run(ledger, 1, c -> { throw boom; }, ctx, "test", "exec"));
        assertSame(Thread.currentThread(), ledger.thread(1));
        assertNull(ProcessThreads.run(ledger, 0, c -> {}, ctx, "test", "exec"));
    }

    private static final class Group implements Participants {
        private final ThreadsPolicy policy = ThreadsPolicy.forProcesses(2, -1, -1);
        @Override public ThreadsPolicy policy() { return policy; }
        @Override public String abandonment(int pid, long round) { return null; }
        @Override public void fail(String reason, Throwable cause) {}
        @Override public FatalException fatal(int pid) { return new FatalException(null, null); }
        @Override public Thread thread(int pid) { return null; }
    }
}
