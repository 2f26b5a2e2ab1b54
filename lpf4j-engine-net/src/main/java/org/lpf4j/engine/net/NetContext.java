package org.lpf4j.engine.net;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.ProbeHarness;
import org.lpf4j.superstep.ProtocolSettings;
import org.lpf4j.superstep.SuperstepContext;

import java.util.Objects;

/**
 * One process of a section of the net engine: the superstep protocol over a {@link NetTransport}.
 * What is the net engine's own: rehook and probe run a new section over the same mesh (the next
 * section number, the same at every member), a nested {@code exec} runs in this JVM on the threads
 * engine (one process without it).
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

    /** Collective: a section over the same processes measures g and l once per job and size; later calls return the figures. */
    @Override
    public Machine probe() {
        requireLive("probe");
        ProbeHarness.Fit fit = sections.fit(nprocs(), () -> {
            ProbeHarness.Fit[] result = new ProbeHarness.Fit[1];
            FatalException f = child(ctx -> result[0] = ProbeHarness.cachedOrMeasured(ctx, sections.probeKey(nprocs()),
                    sections.probeNanos()), Args.NONE, "probe");
            if (f != null) throw f;
            return result[0];
        });
        Machine m = new Machine(nprocs(), freeP, fit.sizes(), fit.g(), fit.l());
        for (String w : fit.warnings()) m = m.withWarning(w);
        return m;
    }

    /**
     * A nested section runs in this JVM on this process's share of the job ({@code freeP}): on the
     * threads engine when it is installed and more than one process fits, else as one process.
     */
    @Override
    public void exec(int p, Spmd spmd, Args args) {
        Objects.requireNonNull(spmd, "exec: spmd");
        Objects.requireNonNull(args, "exec: args");
        if (p < 1) throw new IllegalArgumentException("exec(p=" + p + ") at pid " + pid() + ": p must be at least 1");
        requireLive("exec");
        int n = Math.min(p, freeP);
        Context threads = null;
        if (n > 1) {
            try {
                threads = Lpf.root("threads");
            } catch (RuntimeException e) {
                // not installed or cannot run: one process below
            }
        }
        if (threads != null) {
            threads.exec(n, spmd, args);
            return;
        }
        FatalException f = NetSections.runAlone(spmd, args, sections, "exec(p=" + p + ")");
        if (f != null) throw f;
    }

    @Override
    protected FatalException runRehook(Spmd spmd, Args args) { return child(spmd, args, "rehook"); }

    /** Runs {@code spmd} as a new section over this section's processes, then makes this one active again. */
    private FatalException child(Spmd spmd, Args args, String call) {
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
