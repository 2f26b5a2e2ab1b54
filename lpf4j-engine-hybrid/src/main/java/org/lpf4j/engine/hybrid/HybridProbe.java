package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Machine;
import org.lpf4j.MachineLevels;
import org.lpf4j.spi.kit.ProbeHarness;

import java.util.concurrent.ConcurrentHashMap;

/**
 * g and l of the hybrid machine and of its two levels, measured with the kit's
 * {@link ProbeHarness} and cached per layout in every JVM of the section.
 *
 * <p><b>What the single g and l mean here.</b> They are the figures of the whole machine as the
 * harness drives it: every process sends h-relations to every other, so with N nodes of t
 * threads a fraction (N−1)t/(p−1) of the traffic crosses nodes and the rest is memory copies;
 * l is the cost of a superstep (node-local barriers plus one round of the engine between the nodes). A library
 * that spreads its traffic evenly can use them as they are.
 *
 * <p><b>The levels</b> ({@link Machine#levels()}): the node layout of the section, and
 * <ul>
 * <li>intra-node: the harness over a node-local section of the node's own threads (this
 *     engine's queues, barrier and memory copies, nothing between nodes), on every node at once; node 0's
 *     figures are reported;</li>
 * <li>inter-node: the harness over the node-level section of the engine between the nodes (MPI or
 *     net: one process per node, a
 *     fresh context through its {@code rehook}), run by the nodes' leaders while the other
 *     threads wait.</li>
 * </ul>
 * Measuring takes three harness runs (about three probe budgets,
 * {@code lpf.engine.hybrid.probeMillis}), once per layout and JVM.
 *
 * <p>The processes of a section must agree on whether to measure (it is collective), and the JVMs
 * of a section need not share a history (a Spark executor that ran other stages, or replaced one
 * that did): so pid 0 alone decides, from what its context saw in its JVM's cache when the
 * section started, and sends its figures, or "measure", to every process, in a fresh context (a
 * rehook) so that the program's capacities and slots stay its own. A section's first probe
 * therefore costs a rehook and three broadcasts from pid 0 even when pid 0 has the figures; later
 * probes of the section answer at once.
 */
final class HybridProbe {
    private HybridProbe() {}

    /** The three fits of one layout: the whole machine, one node, one process per node. */
    record Figures(ProbeHarness.Fit whole, ProbeHarness.Fit intra, ProbeHarness.Fit inter) {}

    private static final ConcurrentHashMap<String, Figures> CACHE = new ConcurrentHashMap<>();

    private static String key(Layout layout) { return "hybrid/" + layout; }

    /** @return the figures cached for this layout in this JVM, or null */
    static Figures cached(Layout layout) { return CACHE.get(key(layout)); }

    /** For tests that make up figures: this JVM forgets every layout's. */
    static void forgetForTest() { CACHE.clear(); }

    /**
     * Collective over the section of {@code ctx}: the first call agrees on pid 0's cached figures,
     * or measures when pid 0 has none, in a fresh context over the same processes (a rehook: the
     * agreement sets capacities and registers a slot, and the caller's context keeps its own for
     * its program); later calls answer from the context. Cost of the first call: a rehook and
     * three broadcasts from pid 0 (a few syncs each), plus the measurement when pid 0 had nothing cached.
     */
    static Machine inSection(HybridContext ctx) {
        Figures f = ctx.agreed;
        if (f == null) {
            Figures mine = ctx.pid() == 0 ? ctx.cachedAtStart : null;
            Figures[] result = new Figures[1];
            long budget = ctx.node.settings.probeMillis() * 1_000_000L;
            ctx.rehook(c -> {
                Figures agreed = pid0Figures(c, mine);
                result[0] = agreed != null ? agreed : measure((HybridContext) c, budget);
            }, Args.NONE);
            f = result[0];
            CACHE.putIfAbsent(key(ctx.node.layout), f);
            ctx.agreed = f;
        }
        return machine(ctx.nprocs(), ctx.freeP(), f, ctx.node.layout);
    }

    /** Collective over a fresh context: pid 0's figures ({@code mine} there), at every process; null if it had none. */
    private static Figures pid0Figures(Context ctx, Figures mine) {
        ProbeHarness.Fit whole = ProbeHarness.fromPid0(ctx, mine == null ? null : mine.whole());
        if (whole == null) return null;
        return new Figures(whole, fromPid0(ctx, mine == null ? null : mine.intra()), fromPid0(ctx, mine == null ? null : mine.inter()));
    }

    /**
     * @return the machine of {@code figures}: the whole machine's g and l, with the layout's
     *         nodes and the two levels ({@link MachineLevels})
     */
    static Machine machine(int p, int freeP, Figures figures, Layout layout) {
        Machine m = of(p, freeP, figures.whole());
        int[] sizes = new int[layout.nodes()];
        for (int k = 0; k < sizes.length; k++) sizes[k] = layout.threads(k);
        return m.withLevels(new MachineLevels(sizes, of(layout.threads(0), 0, figures.intra()),
                of(layout.nodes(), 0, figures.inter())));
    }

    private static Machine of(int p, int freeP, ProbeHarness.Fit fit) {
        Machine m = new Machine(p, freeP, fit.sizes(), fit.g(), fit.l());
        for (String w : fit.warnings()) m = m.withWarning(w);
        return m;
    }

    /** Every process of a fresh hybrid section: the three measurements, then pid 0's levels to everyone. */
    private static Figures measure(HybridContext c, long budget) {
        ProbeHarness.Fit whole = ProbeHarness.measure(c, budget);
        Node node = c.node;
        int local = c.local();
        ProbeHarness.Fit intra = NodeLocal.run(c, local, x -> ProbeHarness.measure(x, budget));
        ProbeHarness.Fit[] inter = new ProbeHarness.Fit[1];
        if (local == 0) {
            try {
                node.link.nodes().rehook(n -> inter[0] = ProbeHarness.measure(n, budget), Args.NONE);
            } catch (RuntimeException | Error e) {
                node.fail(node.who(0) + " could not measure the inter-node level: " + e, e);
            }
        }
        node.barrier.await(local, 0);
        if (node.failed()) throw node.fatal(local);
        return new Figures(whole, fromPid0(c, intra), fromPid0(c, inter[0]));
    }

    /** Collective: pid 0's sizes, g and l, to every process (without warnings, which pid 0's harness logged). */
    private static ProbeHarness.Fit fromPid0(Context c, ProbeHarness.Fit mine) {
        ProbeHarness.Fit f = ProbeHarness.fromPid0(c, mine);
        if (f == null) throw new FatalException("probe: pid 0 has no measurement of a level to share", null);
        return new ProbeHarness.Fit(f.sizes(), f.g(), f.l()); // the same on pid 0: no warnings (the harness logged them there)
    }
}
