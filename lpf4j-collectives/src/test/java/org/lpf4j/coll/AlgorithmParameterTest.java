package org.lpf4j.coll;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.spi.CollModule;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lpf4j.coll.Harness.reserve;
import static org.lpf4j.coll.Harness.run;
import static org.lpf4j.coll.Harness.segment;

/**
 * The coll framework's per-operation parameter ({@code lpf.coll.costmodel.<op>}) forces the
 * variant of objects whose variant is AUTO; {@link Collectives#algorithm(Algorithm)} wins over
 * it; it is read once per init; invalid names fail init with a clear message and no effect.
 * A forced TWO_PHASE is observed by its internal sync: a put queued before the call has arrived
 * when the call returns.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AlgorithmParameterTest {
    static final int[] MULTI = Harness.notAbove(2, 3, 4, 5, 8);
    private static final String KEY = "lpf.coll.costmodel.allreduce";
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    @AfterEach
    void clear() { System.clearProperty(KEY); }

    @Test
    void algorithmNamesAgreeWithTheCollFramework() {
        List<String> names = Arrays.stream(Algorithm.values()).filter(a -> a != Algorithm.AUTO)
                .map(a -> a.name().toLowerCase(Locale.ROOT)).toList();
        assertEquals(CollModule.ALGORITHMS, names);
    }

    @ParameterizedTest(name = "p={0}")
    @FieldSource("MULTI")
    void theParameterForcesOneOperationsVariantAndAnExplicitChoiceWins(int p) {
        run(p, ctx -> {
            setInThisProcess("two_phase");
            try {
                int s = ctx.pid();
                reserve(ctx, 3, 2L * p + 2);
                Collectives coll = Collectives.init(ctx, 1, 8, 8);
                assertEquals(Algorithm.TWO_PHASE, coll.algorithm("allreduce"));
                assertEquals(Algorithm.AUTO, coll.algorithm("reduce"));
                assertEquals(Algorithm.AUTO, coll.algorithm("broadcast"));
                assertEquals(Algorithm.AUTO, coll.algorithm());
                MemorySegment x = segment(8), probe = segment(16);
                Memslot xs = ctx.registerGlobal(x), ps = ctx.registerGlobal(probe);
                ctx.sync();
                probe.set(LONG, 0, 100 + s);
                long fromPrev = 100 + (s + p - 1) % p;

                assertEquals(1, allreduceAndCountArrivals(ctx, coll, x, xs, probe, ps), "TWO_PHASE syncs inside");
                coll.algorithm(Algorithm.DIRECT);
                assertEquals(Algorithm.DIRECT, coll.algorithm("allreduce"));
                assertEquals(0, allreduceAndCountArrivals(ctx, coll, x, xs, probe, ps), "DIRECT does not sync");
                assertEquals(fromPrev, probe.get(LONG, 8));
                coll.algorithm(Algorithm.AUTO);
                assertEquals(Algorithm.TWO_PHASE, coll.algorithm("allreduce"), "back to the parameter's choice");

                ctx.deregister(ps);
                ctx.deregister(xs);
                coll.close();
            } finally {
                System.clearProperty(KEY); // after every process's init: it has synced since
            }
        });
    }

    /**
     * Sets the parameter in the calling process's JVM. Every process of a section sets it itself:
     * on an engine whose processes are separate JVMs (MPI), a setting made by the test before
     * {@code exec} reaches pid 0 only. In one JVM (threads) they all set the same value.
     */
    private static void setInThisProcess(String algorithm) {
        System.setProperty(KEY, algorithm);
    }

    /**
     * Queues a put of {@code probe[0,8)} into the next pid's {@code probe[8,16)}, allreduces
     * {@code pid + 1}, and returns 1 if the put had arrived when the call returned (an internal
     * sync), else 0; then syncs and checks the sum.
     */
    private static int allreduceAndCountArrivals(Context ctx, Collectives coll, MemorySegment x, Memslot xs,
                                                 MemorySegment probe, Memslot ps) {
        int p = ctx.nprocs(), s = ctx.pid();
        probe.set(LONG, 8, 0);
        ctx.sync(); // everybody has cleared before anybody's put can land
        x.set(DOUBLE, 0, s + 1.0);
        ctx.put(ps, 0, (s + 1) % p, ps, 8, 8);
        coll.allreduce(x, xs, 8, Ops.DOUBLE_SUM);
        int arrived = probe.get(LONG, 8) != 0 ? 1 : 0;
        ctx.sync();
        assertEquals(p * (p + 1) / 2.0, x.get(DOUBLE, 0));
        assertEquals(100 + (s + p - 1) % p, probe.get(LONG, 8));
        return arrived;
    }

    @Test
    void readOncePerInit() {
        Context root = Lpf.root();
        reserve(root, 2, 4);
        System.setProperty(KEY, "two_phase");
        Collectives first = Collectives.init(root, 1, 8, 8);
        System.setProperty(KEY, "tree");
        Collectives second = Collectives.init(root, 1, 8, 8);
        root.sync();
        assertEquals(Algorithm.TWO_PHASE, first.algorithm("allreduce"), "a later setting leaves the object alone");
        assertEquals(Algorithm.TREE, second.algorithm("allreduce"));
        second.close();
        first.close();
    }

    @Test
    void anInvalidNameFailsInitClearlyAndChangesNothing() {
        Context root = Lpf.root();
        reserve(root, 1, 2);
        System.setProperty(KEY, "twophase");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Collectives.init(root, 1, 8, 8));
        for (String part : List.of(KEY, "'twophase'", "system property", "did you mean 'two_phase'")) {
            assertTrue(e.getMessage().contains(part), "'" + part + "' in: " + e.getMessage());
        }
        System.clearProperty(KEY);
        Collectives ok = Collectives.init(root, 1, 8, 8); // the one register entry is still free
        root.sync();
        assertEquals(Algorithm.AUTO, ok.algorithm("allreduce"));
        ok.close();
        IllegalArgumentException op = assertThrows(IllegalArgumentException.class, () -> ok.algorithm("gather"));
        assertTrue(op.getMessage().contains("\"gather\""), op.getMessage());
    }

    @Test
    void aStrictSubsetKeepsItsOneSuperstepVariant() {
        run(4, ctx -> {
            setInThisProcess("tree");
            try {
                reserve(ctx, 2, 6);
                Collectives coll = Collectives.initStrided(ctx, 1, 4, 2, 1, 8, 8);
                MemorySegment x = segment(8);
                Memslot xs = ctx.registerGlobal(x);
                ctx.sync();
                if (coll.rank() >= 0) {
                    assertEquals(Algorithm.AUTO, coll.algorithm("allreduce"));
                    x.set(DOUBLE, 0, ctx.pid());
                    coll.allreduce(x, xs, 8, Ops.DOUBLE_SUM); // members only: must not sync inside
                }
                ctx.sync();
                if (coll.rank() >= 0) assertEquals(1.0 + 3.0, x.get(DOUBLE, 0));
                ctx.deregister(xs);
                coll.close();
            } finally {
                System.clearProperty(KEY); // after every process's init: it has synced since
            }
        });
    }
}
