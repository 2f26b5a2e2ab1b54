package org.lpf4j.engine.net;

import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.ProbeHarness;
import org.lpf4j.superstep.ProtocolSettings;
import org.lpf4j.superstep.SuperstepContext;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * How the net engine runs a process's part of a section, and what its sections share: the
 * protocol's settings, the probe's figures (measured once per job and size), the probe's key.
 */
final class NetSections {
    private final ProtocolSettings protocol;
    private final String engineKey;
    private final long probeNanos;
    private final Map<Integer, ProbeHarness.Fit> fits = new ConcurrentHashMap<>();

    /**
     * @param protocol   the protocol's settings (the same at every process)
     * @param engineKey  the probe cache key of the job's placement (e.g. "net/host/4")
     * @param probeNanos the time budget of one probe measurement
     */
    NetSections(ProtocolSettings protocol, String engineKey, long probeNanos) {
        this.protocol = protocol;
        this.engineKey = engineKey;
        this.probeNanos = probeNanos;
    }

    ProtocolSettings protocol() { return protocol; }

    String probeKey(int p) { return engineKey + "/" + p; }

    long probeNanos() { return probeNanos; }

    /** @return the figures of sections of {@code p} processes, measured by {@code measure} the first time (collective then) */
    ProbeHarness.Fit fit(int p, Supplier<ProbeHarness.Fit> measure) {
        ProbeHarness.Fit f = fits.get(p);
        if (f == null) {
            f = measure.get();
            fits.put(p, f);
        }
        return f;
    }

    /**
     * Runs {@code spmd} as this process of section {@code section} (ranks {@code 0 .. members - 1}
     * of the mesh), with {@code freeP} processors for its nested sections.
     *
     * @return the section's failure (with the causes at pid 0), or null
     */
    FatalException run(Mesh mesh, int section, int members, Spmd spmd, Args args, String call, int freeP) {
        NetTransport transport = new NetTransport(mesh, section, members);
        NetContext ctx = new NetContext(mesh, transport, section, args, CrossJvmObjects.forSection(spmd), this, freeP);
        return SuperstepContext.runProcess(ctx, spmd, "net", call);
    }

    /** Runs {@code spmd} as a section of one process in this JVM, with no connection. */
    static FatalException runAlone(Spmd spmd, Args args, NetSections sections, String call) {
        return sections.run(null, 0, 1, spmd, args, call, 1);
    }
}
