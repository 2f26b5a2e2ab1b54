package org.lpf4j.engine.net;

import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.ProbeHarness;
import org.lpf4j.superstep.SuperstepContext;

import java.util.function.Supplier;

/**
 * One process of a section of the net engine: the superstep protocol over a {@link NetTransport}.
 * What is the net engine's own: rehook and probe run a new section over the same mesh (the next
 * section number, the same at every member); a nested section of one process needs no mesh.
 */
final class NetContext extends SuperstepContext {
    private final Mesh mesh;
    private final int section;
    private final NetSections sections;
    private final int freeP;

    /** @param freeP the processors this process has for nested sections (its share of the job) */
    NetContext(Mesh mesh, NetTransport transport, int section, Args args, CrossJvmObjects objects, NetSections sections,
               int freeP) {
        super(transport, args, objects, sections.protocol(), "net");
        this.mesh = mesh;
        this.section = section;
        this.sections = sections;
        this.freeP = freeP;
    }

    /** The figures are kept per job ({@link NetSections}): the processes of a loopback test share a JVM. */
    @Override
    protected ProbeHarness.Fit probeFit(Supplier<ProbeHarness.Fit> measure) { return sections.fit(nprocs(), measure); }

    @Override protected String probeKey() { return sections.probeKey(nprocs()); }

    @Override protected long probeNanos() { return sections.probeNanos(); }

    @Override protected int freeP() { return freeP; }

    @Override
    protected FatalException runAlone(Spmd spmd, Args args, String call) { return NetSections.runAlone(spmd, args, sections, call); }

    /** Runs {@code spmd} as a new section over this section's processes, then makes this one active again. */
    @Override
    protected FatalException runChild(Spmd spmd, Args args, String call) {
        if (mesh == null) return NetSections.runAlone(spmd, args, sections, call);
        try {
            return sections.run(mesh, mesh.nextSection(), nprocs(), spmd, args, call, freeP);
        } finally {
            mesh.activate(section, nprocs());
        }
    }

    @Override
    protected void closeEngine() {}
}
