package org.lpf4j.engine.hybrid;

import org.lpf4j.Machine;
import org.lpf4j.spi.kit.ProbeHarness;

import java.util.concurrent.ConcurrentHashMap;

/**
 * g and l of the hybrid machine, measured with the kit's {@link ProbeHarness} over a hybrid
 * section (through {@code rehook}, so every process takes part) and cached per layout in every
 * JVM of the section.
 *
 * <p><b>What the single g and l mean here.</b> They are the figures of the whole machine as the
 * harness drives it: every process sends h-relations to every other, so with N nodes of t
 * threads a fraction (N−1)t/(p−1) of the traffic crosses nodes and the rest is memory copies;
 * l is the cost of a superstep (node-local barriers plus one allreduce over the nodes). A library
 * that spreads its traffic evenly can use them as they are. Separate intra-node and inter-node
 * figures (for a two-level tree) are not measured yet: the threads engine's probe is the
 * intra-node level and the MPI engine's probe over one rank per node the inter-node level.
 *
 * <p>The processes of a section must agree on whether to measure (it is collective): each context
 * reads the cache once, when the section starts, and all JVMs of a layout fill their caches in
 * the same section, so the answers agree.
 */
final class HybridProbe {
    private HybridProbe() {}

    private static final ConcurrentHashMap<String, ProbeHarness.Fit> CACHE = new ConcurrentHashMap<>();

    private static String key(Layout layout) { return "hybrid/" + layout; }

    /** @return the fit cached for this layout in this JVM, or null */
    static ProbeHarness.Fit cached(Layout layout) { return CACHE.get(key(layout)); }

    /** Collective over the section of {@code ctx}: measures once per layout (a rehook), then answers from the cache. */
    static Machine inSection(HybridContext ctx) {
        ProbeHarness.Fit fit = ctx.fit;
        if (fit == null) {
            ProbeHarness.Fit[] result = new ProbeHarness.Fit[1];
            long budget = ctx.node.settings.probeMillis() * 1_000_000L;
            ctx.rehook(c -> result[0] = ProbeHarness.measure(c, budget), org.lpf4j.Args.NONE);
            fit = result[0];
            CACHE.putIfAbsent(key(ctx.node.layout), fit);
            ctx.fit = fit;
        }
        return new Machine(ctx.nprocs(), ctx.freeP(), fit.sizes(), fit.g(), fit.l());
    }
}
