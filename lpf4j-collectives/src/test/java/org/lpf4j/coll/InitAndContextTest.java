package org.lpf4j.coll;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lpf4j.Context;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Memslot;
import org.lpf4j.spi.kit.CountingContext;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.lpf4j.coll.Harness.assertRefused;
import static org.lpf4j.coll.Harness.reserve;
import static org.lpf4j.coll.Harness.run;
import static org.lpf4j.coll.Harness.segment;

/**
 * {@code init} out of memory changes nothing, and {@link Collectives#context()} is the context
 * the object was made on ({@code lpf_collectives_get_context}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InitAndContextTest {
    static final int[] ONE_TO_EIGHT = Harness.notAbove(1, 2, 3, 4, 5, 6, 7, 8);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    /**
     * Buffers whose size overflows a long (maxByteSize or maxElemSize near Long.MAX_VALUE,
     * maxCalls times a large region) and a buffer too large to allocate (2^50 bytes) make
     * {@code init} throw {@link LpfOutOfMemoryException} naming the call (an overflowing
     * {@code initStrided} at non-members too), and register, queue
     * and sync nothing: the register, reserved for exactly the program's one slot plus the one
     * entry of one object, still has that entry, so a normal {@code init} afterwards takes it and
     * works.
     */
    @ParameterizedTest(name = "p={0}")
    @FieldSource("ONE_TO_EIGHT")
    void outOfMemoryAtInitRegistersNothing(int p) {
        run(p, raw -> {
            CountingContext ctx = new CountingContext(raw);
            int s = ctx.pid();
            reserve(ctx, 2, 2L * p); // the program's slot x and the one entry of one object
            MemorySegment x = segment(8);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            int registrations = ctx.registrations(), syncs = ctx.syncs();
            String call = "Collectives.init", pid = "at pid " + s;
            assertRefused(LpfOutOfMemoryException.class, () -> Collectives.init(ctx, 1, 0, Long.MAX_VALUE),
                    call, "maxByteSize=" + Long.MAX_VALUE, pid, "nothing changed");
            assertRefused(LpfOutOfMemoryException.class, () -> Collectives.init(ctx, 1, Long.MAX_VALUE - 7, 0),
                    call, pid, "nothing changed");
            assertRefused(LpfOutOfMemoryException.class, () -> Collectives.init(ctx, 2, 0, Long.MAX_VALUE / 2),
                    call, pid, "nothing changed");
            assertRefused(LpfOutOfMemoryException.class, () -> Collectives.init(ctx, Integer.MAX_VALUE, 8, 1L << 40),
                    call, pid, "nothing changed");
            assertRefused(LpfOutOfMemoryException.class, () -> Collectives.init(ctx, 1, 8, 1L << 50), // 1 PiB
                    call, pid, "nothing changed");
            // Strided: the non-members (odd pids), which allocate nothing, refuse the overflow too.
            assertRefused(LpfOutOfMemoryException.class, () -> Collectives.initStrided(ctx, 0, p, 2, 1, 0, Long.MAX_VALUE),
                    "Collectives.initStrided", pid, "overflows", "nothing changed");
            assertEquals(registrations, ctx.registrations(), "the failed inits registered slots, " + pid);
            assertEquals(0, ctx.deregistrations(), "the failed inits deregistered slots, " + pid);
            assertEquals(0, ctx.requests(), "the failed inits queued requests, " + pid);
            assertEquals(syncs, ctx.syncs(), "the failed inits synced, " + pid);
            // The object's register entry is still free: a normal init takes it and works.
            Collectives coll = Collectives.init(ctx, 1, 8, 64).algorithm(Algorithm.DIRECT);
            assertEquals(registrations + 1, ctx.registrations(), pid);
            ctx.sync();
            x.set(LONG, 0, s + 1);
            coll.allreduce(x, xs, 8, Ops.LONG_SUM);
            ctx.sync();
            assertEquals((long) p * (p + 1) / 2, x.get(LONG, 0), "allreduce after the failed inits, " + pid);
            coll.close();
            ctx.deregister(xs);
        });
    }

    /**
     * {@code context()} returns the very context passed to {@code init} / {@code initStrided}:
     * two objects made on two different wrappers of one process's context each return their own
     * wrapper (not the wrapped context), at members and non-members, before the first sync and
     * after {@code close}.
     */
    @ParameterizedTest(name = "p={0}")
    @FieldSource("ONE_TO_EIGHT")
    void contextIsTheContextTheObjectWasMadeOn(int p) {
        run(p, raw -> {
            Context a = new CountingContext(raw), b = new CountingContext(raw);
            reserve(raw, 3, 0);
            Collectives onA = Collectives.init(a, 1, 0, 8);
            Collectives onB = Collectives.initStrided(b, p > 1 ? 1 : 0, p, 2, 1, 0, 8);
            Collectives onRaw = Collectives.init(raw, 1, 0, 8);
            assertSame(a, onA.context(), "init on wrapper a");
            assertSame(b, onB.context(), "initStrided on wrapper b (rank " + onB.rank() + ")");
            assertSame(raw, onRaw.context(), "init on the engine's context");
            raw.sync();
            onRaw.close();
            onB.close();
            onA.close();
            assertSame(a, onA.context(), "after close");
            assertSame(b, onB.context(), "after close");
            assertSame(raw, onRaw.context(), "after close");
        });
    }
}
