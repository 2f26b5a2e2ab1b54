package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Memslot;
import org.lpf4j.debug.Debug;
import org.lpf4j.debug.LpfProgrammingError;

import java.io.File;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Failure messages of the threads engine name the culprit and show only public types. */
@Timeout(60)
class CulpritMessagesTest {
    private static final ThreadsSettings SETTINGS = new ThreadsSettings(2, -1, -1, 50, "auto", 512, 60_000, 0, true);

    @Test
    void aPutIntoMemoryWhoseArenaTheReceiverClosedNamesTheRequest() {
        FatalException e = assertThrows(FatalException.class, () -> ThreadsEngine.root(SETTINGS).exec(2, ctx -> {
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            Arena arena = Arena.ofShared();
            Memslot slot = ctx.registerGlobal(arena.allocate(64));
            ctx.sync();
            if (ctx.pid() == 1) arena.close(); // the receiver frees registered memory
            ctx.sync();
            if (ctx.pid() == 0) ctx.put(slot, 0, 1, slot, 8, 16);
            ctx.sync();
        }));
        String m = e.getMessage();
        assertTrue(m.contains("put from pid 0 to pid 1 global#0 (remote offset=8, size=16): pid 1 closed the Arena"), m);
    }

    @Test
    void followOnFailuresArePublicFatalExceptions() throws Exception {
        int p = 3;
        AtomicReferenceArray<Throwable> atSync = new AtomicReferenceArray<>(p);
        FatalException e = assertThrows(FatalException.class, () -> ThreadsEngine.root(SETTINGS).exec(p, ctx -> {
            if (ctx.pid() == 2) throw new IllegalStateException("boom");
            try {
                ctx.sync();
            } catch (FatalException f) {
                atSync.set(ctx.pid(), f);
                throw f;
            }
        }));
        assertEquals("boom", e.getCause().getMessage());
        for (int pid = 0; pid < 2; pid++) {
            assertEquals(FatalException.class, atSync.get(pid).getClass(), "pid " + pid);
            assertTrue(atSync.get(pid).getMessage().contains("pid 2 threw java.lang.IllegalStateException: boom"),
                    atSync.get(pid).getMessage());
        }
        java.io.StringWriter trace = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(trace));
        assertFalse(trace.toString().contains("TeamFailure") || trace.toString().contains("engine.threads.Team$"), trace.toString());
    }

    @Test
    void underTheDebugLayerTheCauseIsTheFirstErrorNotAFollowOn() {
        CountDownLatch thrown = new CountDownLatch(1), synced = new CountDownLatch(1);
        FatalException e = assertThrows(FatalException.class, () -> Debug.wrap(ThreadsEngine.root(SETTINGS)).exec(2, ctx -> {
            ctx.resizeMemoryRegister(1);
            ctx.sync();
            ctx.registerGlobal(MemorySegment.ofArray(new byte[8]));
            ctx.sync();
            if (ctx.pid() == 1) {
                // Only once pid 0 is out of its sync, which would otherwise fail as a follow-on.
                synced.await(10, TimeUnit.SECONDS);
                thrown.countDown();
                throw new IllegalStateException("the first error");
            }
            synced.countDown();
            thrown.await(10, TimeUnit.SECONDS);
            // pid 0 returns with its slot registered: a follow-on of pid 1's failure. No pause needed:
            // the debug layer's exchange at the end waits in the engine's barrier, which releases pid 0
            // only once pid 1's failure has failed the section.
        }));
        assertFalse(e instanceof LpfProgrammingError, e.toString());
        assertEquals("the first error", e.getCause().getMessage(), e.toString());
        assertInstanceOf(LpfProgrammingError.class, e.getSuppressed()[0], "the follow-on is still there, suppressed");
    }

    @Test
    void resizeMessageQueueRefusesNothingThatFitsAndFailsWithoutEffect() throws Exception {
        String cp = String.join(File.pathSeparator, location(Context.class), location(ThreadsEngine.class),
                location(CulpritMessagesTest.class));
        String java = ProcessHandle.current().info().command().orElse("java");
        Process proc = new ProcessBuilder(java, "-Xmx256m", "-cp", cp, QueueSizes.class.getName())
                .redirectErrorStream(true).start();
        try {
            if (!proc.waitFor(60, TimeUnit.SECONDS)) fail("the child JVM did not finish");
            String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, proc.exitValue(), out);
            assertTrue(out.contains("400000 fits") && out.contains("refused without effect") && out.contains("still works"), out);
        } finally {
            proc.descendants().forEach(ProcessHandle::destroyForcibly);
            proc.destroyForcibly();
            proc.onExit().get(10, TimeUnit.SECONDS);
        }
    }

    private static String location(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    /**
     * Run under -Xmx256m: 400,000 entries need about 45 MB of heap (the old estimate, which
     * counted native records as heap, refused anything above about 380,000); the largest
     * capacity fails with LpfOutOfMemoryException and leaves the queue as it was.
     */
    static final class QueueSizes {
        public static void main(String[] args) {
            Context root = ThreadsEngine.root(SETTINGS);
            root.resizeMemoryRegister(1);
            root.resizeMessageQueue(400_000);
            root.sync();
            System.out.println("400000 fits");
            try {
                root.resizeMessageQueue(org.lpf4j.engine.threads.group.RequestQueue.MAX_CAPACITY);
                System.out.println("MAX_CAPACITY accepted?!");
            } catch (LpfOutOfMemoryException e) {
                System.out.println("refused without effect: " + e.getMessage());
            }
            root.sync();
            MemorySegment m = MemorySegment.ofArray(new long[2]);
            Memslot s = root.registerGlobal(m);
            root.sync();
            root.put(s, 0, 0, s, 8, 8);
            root.sync();
            root.deregister(s);
            System.out.println("still works");
        }
    }
}
