package org.lpf4j.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.junit.jupiter.api.function.Executable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad arguments that can be checked locally throw at once, with a message naming the call, the
 * pid and the values, and leave the state unchanged: after each refused call the queue still
 * holds exactly the requests made before, which the final sync delivers.
 */
@Timeout(60)
class BadInputTest {

    private static <T extends Throwable> void refused(Class<T> type, Executable call, String... fragments) {
        T e = assertThrows(type, call);
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "'" + e.getMessage() + "' lacks '" + f + "'");
    }

    @ExpectsEngineRefusal
    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void badPutsAndGetsAreRefusedWithoutEffect(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            // A slot of another context: registered in a nested section of this process (in the
            // same JVM as this process on every engine).
            AtomicReference<Memslot> foreign = new AtomicReference<>();
            ctx.exec(1, other -> {
                other.resizeMemoryRegister(1);
                other.sync();
                foreign.set(other.registerGlobal(Arena.ofAuto().allocate(8)));
                other.sync();
            });
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            MemorySegment area = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG, 2);
            MemorySegment local = Arena.ofAuto().allocate(16);
            // 'gone' is stale; its register entry (and maybe its id) is reused by 'l'.
            Memslot gone = ctx.registerLocal(Arena.ofAuto().allocate(8));
            ctx.deregister(gone);
            Memslot g = ctx.registerGlobal(area);
            Memslot l = ctx.registerLocal(local);
            ctx.sync();
            local.set(ValueLayout.JAVA_LONG, 0, 1000 + s);
            String at = "at pid " + s;
            refused(IndexOutOfBoundsException.class, () -> ctx.put(l, 0, p, g, 0, 8), "put(", "dstPid=" + p, at);
            refused(IndexOutOfBoundsException.class, () -> ctx.put(l, 0, -1, g, 0, 8), "dstPid=-1");
            refused(IllegalArgumentException.class, () -> ctx.put(l, 0, 0, g, 0, -8), "size=-8", "negative size");
            refused(IllegalArgumentException.class, () -> ctx.put(l, -1, 0, g, 0, 8), "srcOffset=-1");
            refused(IllegalArgumentException.class, () -> ctx.put(l, 0, 0, g, -4, 8), "dstOffset=-4");
            refused(IndexOutOfBoundsException.class, () -> ctx.put(l, 12, 0, g, 0, 8), "srcOffset=12", "16 registered bytes");
            refused(IndexOutOfBoundsException.class, () -> ctx.put(l, Long.MAX_VALUE, 0, g, 0, 8), "srcOffset=" + Long.MAX_VALUE);
            refused(IllegalArgumentException.class, () -> ctx.put(l, 0, 0, l, 0, 8), "local slot");
            refused(IllegalArgumentException.class, () -> ctx.put(gone, 0, 0, g, 0, 8), "deregistered");
            refused(IllegalArgumentException.class, () -> ctx.put(foreign.get(), 0, 0, g, 0, 8), "another context");
            refused(IllegalArgumentException.class, () -> ctx.put(l, 0, 0, foreign.get(), 0, 8), "another context");
            refused(IllegalArgumentException.class, () -> ctx.put(null, 0, 0, g, 0, 8), "null");
            refused(IndexOutOfBoundsException.class, () -> ctx.get(p + 3, g, 0, l, 0, 8), "get(", "srcPid=" + (p + 3), at);
            refused(IllegalArgumentException.class, () -> ctx.get(0, l, 0, l, 0, 8), "local slot");
            refused(IndexOutOfBoundsException.class, () -> ctx.get(0, g, 0, l, 9, 8), "dstOffset=9", "16 registered bytes");
            refused(IllegalArgumentException.class, () -> ctx.get(0, g, 0, gone, 0, 8), "deregistered");
            refused(IllegalArgumentException.class, () -> ctx.get(0, g, -2, l, 0, 8), "srcOffset=-2");
            refused(IllegalArgumentException.class, () -> ctx.deregister(gone), "deregister(", "already deregistered");
            refused(IllegalArgumentException.class, () -> ctx.deregister(foreign.get()), "another context");
            // Exactly the two valid requests below fit: no refused call took a queue entry.
            ctx.put(l, 0, (s + 1) % p, g, 0, 8);
            ctx.get((s + 1) % p, g, 0, l, 8, 8);
            refused(IllegalStateException.class, () -> ctx.put(l, 0, 0, g, 8, 8), "message queue full");
            ctx.sync();
            assertEquals(1000 + (s + p - 1) % p, area.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(0L, area.get(ValueLayout.JAVA_LONG, 8), "a refused put was executed");
            refused(IllegalStateException.class, () -> ctx.registerLocal(Arena.ofAuto().allocate(1)), "memory register full");
            refused(IllegalArgumentException.class, () -> ctx.exec(0, c -> { }), "exec(p=0)");
            refused(IllegalArgumentException.class, () -> ctx.resizeMessageQueue(-1), "resizeMessageQueue(-1)");
            refused(IllegalArgumentException.class, () -> ctx.resizeMemoryRegister(-5), "resizeMemoryRegister(-5)");
            ctx.sync();
            ctx.deregister(l);
            ctx.deregister(g);
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.lpf4j.conformance.Matrix#engines")
    void aRemoteAreaTooSmallFailsTheSectionAtTheSync(String engine) {
        // The remote size is known only at the sync: pid 1 registers 4 bytes, pid 0 puts 8.
        var e = assertThrows(org.lpf4j.FatalException.class, () -> Lpf.root(engine).exec(2, ctx -> {
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            Memslot src = ctx.registerLocal(Arena.ofAuto().allocate(8));
            Memslot dst = ctx.registerGlobal(Arena.ofAuto().allocate(ctx.pid() == 1 ? 4 : 8));
            ctx.sync();
            if (ctx.pid() == 0) ctx.put(src, 0, 1, dst, 0, 8);
            ctx.sync();
            // Reached where the sync of pid 0 succeeds and only pid 1's fails (MPI): no second error here.
            ctx.deregister(dst);
            ctx.deregister(src);
        }));
        assertTrue(e.getMessage().contains("exceeds the 4 bytes"), e.getMessage());
    }

    @ExpectsEngineRefusal
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.lpf4j.conformance.Matrix#engines")
    void threadConfinedMemoryCannotBeRegistered(String engine) {
        Context root = Lpf.root(engine);
        root.resizeMemoryRegister(1);
        root.sync();
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment seg = confined.allocate(8);
            refused(IllegalArgumentException.class, () -> root.registerGlobal(seg), "confined", "shared");
        }
    }
}
