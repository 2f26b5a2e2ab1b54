package org.lpf4j.coll;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lpf4j.Context;
import org.lpf4j.Machine;
import org.lpf4j.MachineLevels;
import org.lpf4j.Memslot;
import org.lpf4j.spi.kit.ForwardingContext;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two-level tree over the machine's nodes: on a context whose {@code probe()} reports levels
 * (the engine's context with a machine that has a node layout, as a two-level engine would
 * report it), the tree's groups are exactly the nodes, and broadcast, reduce, allreduce, combine
 * and allcombine forced to {@link Algorithm#TREE} are correct at every root, for even, uneven and
 * one-process nodes; {@link Algorithm#AUTO} prices with the levels and is correct too.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeGroupsTest {
    /** Node layouts, as "3-2-2": p = 7 on three nodes (those of at most the largest of {@link Harness#PROCS} processes). */
    static final String[] LAYOUTS = Arrays.stream(new String[] {"2-2", "3-2-2", "1-3", "4-1", "2-2-2-2", "1-1-1"})
            .filter(l -> Harness.notAbove(Arrays.stream(l.split("-")).mapToInt(Integer::parseInt).sum()).length == 1)
            .toArray(String[]::new);

    @ParameterizedTest(name = "nodes {0}")
    @FieldSource("LAYOUTS")
    void treeOverNodesAtEveryRoot(String layout) {
        int[] sizes = Arrays.stream(layout.split("-")).mapToInt(Integer::parseInt).toArray();
        int p = Arrays.stream(sizes).sum();
        Harness.run(p, plain -> {
            Context ctx = new WithLevels(plain, sizes);
            int s = ctx.pid();
            Harness.reserve(ctx, 3, 4L * p + 4);
            Collectives coll = Collectives.init(ctx, 1, 8, 8L * p);
            assertArrayEquals(sizes, coll.treeGroups(), "the tree's groups are the nodes");
            assertTrue(coll.treeGroupsAreNodes());
            MemorySegment a = MemorySegment.ofArray(new long[p]), b = MemorySegment.ofArray(new long[p]);
            Memslot as = ctx.registerGlobal(a), bs = ctx.registerGlobal(b);
            ctx.sync();
            for (Algorithm alg : new Algorithm[] {Algorithm.TREE, Algorithm.AUTO}) {
                coll.algorithm(alg);
                for (int root = 0; root < p; root++) {
                    String at = alg + " root " + root + " pid " + s;
                    for (int i = 0; i < p; i++) a.setAtIndex(JAVA_LONG, i, s == root ? 1000L * root + i : -1);
                    coll.broadcast(as, bs, 8L * p, root);
                    ctx.sync();
                    if (s != root) for (int i = 0; i < p; i++) assertEquals(1000L * root + i, b.getAtIndex(JAVA_LONG, i), "broadcast " + at);
                    a.setAtIndex(JAVA_LONG, 0, s + 1);
                    coll.reduce(a, as, 8, Ops.LONG_SUM, root);
                    ctx.sync();
                    if (s == root) assertEquals((long) p * (p + 1) / 2, a.getAtIndex(JAVA_LONG, 0), "reduce " + at);
                    for (int i = 0; i < p; i++) a.setAtIndex(JAVA_LONG, i, 10L * s + i);
                    coll.combine(a, as, p, 8, Ops.LONG_MAX, root);
                    ctx.sync();
                    if (s == root) for (int i = 0; i < p; i++) assertEquals(10L * (p - 1) + i, a.getAtIndex(JAVA_LONG, i), "combine " + at);
                }
                a.setAtIndex(JAVA_LONG, 0, 3L * s);
                coll.allreduce(a, as, 8, Ops.LONG_SUM);
                ctx.sync();
                assertEquals(3L * p * (p - 1) / 2, a.getAtIndex(JAVA_LONG, 0), "allreduce " + alg + " pid " + s);
                for (int i = 0; i < p; i++) a.setAtIndex(JAVA_LONG, i, s == i ? 5 : 1);
                coll.allcombine(a, as, p, 8, Ops.LONG_SUM);
                ctx.sync();
                for (int i = 0; i < p; i++) assertEquals(p + 4, a.getAtIndex(JAVA_LONG, i), "allcombine " + alg + " pid " + s);
            }
            coll.close();
            ctx.deregister(bs);
            ctx.deregister(as);
        });
    }

    /**
     * A context whose machine reports the given nodes, with fixed figures (memory copies ten times
     * cheaper per byte than the network), so the test measures nothing and runs alike on any engine.
     */
    static final class WithLevels extends ForwardingContext {
        private final int[] sizes;

        WithLevels(Context delegate, int[] sizes) {
            super(delegate);
            this.sizes = sizes;
        }

        @Override
        public Machine probe() {
            long[] s = {8, 1 << 20};
            int largest = Arrays.stream(sizes).max().orElseThrow();
            Machine whole = new Machine(nprocs(), 0, s, new double[] {5e-9, 5e-10}, new double[] {1e-5, 1e-5});
            Machine intra = new Machine(largest, 0, s, new double[] {1e-9, 1e-10}, new double[] {1e-6, 1e-6});
            Machine inter = new Machine(sizes.length, 0, s, new double[] {1e-8, 1e-9}, new double[] {5e-6, 5e-6});
            return whole.withLevels(new MachineLevels(sizes, intra, inter));
        }
    }
}
