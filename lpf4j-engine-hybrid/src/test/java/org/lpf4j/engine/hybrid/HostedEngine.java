package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;
import org.lpf4j.engine.net.HostedSection;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.boot.LocalJob;
import org.lpf4j.spi.kit.ForwardingContext;
import org.lpf4j.spi.kit.RequestChecks;
import org.lpf4j.superstep.WholeJobProbe;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A test engine, {@code hosted}: every {@code exec(p)} runs p threads of this JVM as a
 * {@link HostedNode} section, the way a Spark stage's tasks run. The threads form
 * {@link #nodes(int)} nodes with interleaved pids (node k holds the pids ≡ k mod nodes, so no
 * node's pids are contiguous), whose leaders meet in a net-engine {@link HostedSection} over
 * loopback with an in-JVM boot job. The conformance suite runs on it unchanged
 * ({@code HostedNodeTest}). Priority 1: never chosen unless named.
 */
public final class HostedEngine implements EngineProvider {
    /** For ServiceLoader. */
    public HostedEngine() {}

    @Override public String name() { return "hosted"; }
    @Override public Version frameworkApiVersion() { return new Version(1, 0, 0); }
    @Override public Version version() { return new Version(0, 1, 0); }
    @Override public Query query() { return Query.run(1); }
    @Override public int machineSize() { return 8; }

    /** @return the nodes of a section of p: 1 for p = 1, 2 up to p = 4, 3 from p = 5 */
    static int nodes(int p) { return p == 1 ? 1 : p <= 4 ? 2 : 3; }

    /** @return node k's pids: those ≡ k mod nodes, ascending */
    static int[][] interleaved(int p, int nodes) {
        int[][] groups = new int[nodes][];
        for (int k = 0; k < nodes; k++) {
            groups[k] = new int[(p - k + nodes - 1) / nodes];
            for (int l = 0; l < groups[k].length; l++) groups[k][l] = k + l * nodes;
        }
        return groups;
    }

    private static int nodeOf(int[][] groups, int pid) {
        for (int k = 0; k < groups.length; k++) for (int q : groups[k]) if (q == pid) return k;
        throw new IllegalArgumentException("pid " + pid);
    }

    @Override
    public Context root() {
        return new ForwardingContext(Lpf.root("threads")) {
            @Override
            public void exec(int p, Spmd spmd, Args args) {
                RequestChecks.checkExec(0, p, spmd, args);
                run(interleaved(Math.min(p, machineSize()), nodes(Math.min(p, machineSize()))), spmd, args, "hosted-test");
            }

            @Override
            public Machine probe() { return WholeJobProbe.probe("hosted", machineSize(), (n, s) -> exec(n, s, Args.NONE)); }
        };
    }

    /**
     * Runs a hosted section over {@code groups} on new threads of this JVM; returns when all have
     * returned. Throws pid 0's failure if the section failed.
     */
    static void run(int[][] groups, Spmd spmd, Args args, String placement) {
        int p = 0;
        for (int[] g : groups) p += g.length;
        String section = placement + "-" + java.util.UUID.randomUUID();
        byte[] secret = HostedSection.newSecret();
        FatalException[] failures = new FatalException[p];
        int[] processors = new int[groups.length]; // the machine's 8, shared out as the other engines lend idle processors
        for (int k = 0; k < groups.length; k++) processors[k] = org.lpf4j.superstep.JobRuntime.share(Math.max(8, p), groups.length, k);
        List<Thread> threads = new ArrayList<>();
        try (LocalJob job = new LocalJob(groups.length)) {
            for (int pid = 0; pid < p; pid++) {
                int me = pid;
                threads.add(Thread.ofPlatform().name("hosted-pid" + pid).start(() -> {
                    try (HostedNode.Member m = HostedNode.join(section, groups, me, 1, processors[nodeOf(groups, me)])) {
                        if (m.leads()) {
                            try (var session = job.session(m.node())) {
                                m.lead(spmd, Duration.ofSeconds(30), f -> HostedSection.run(session,
                                        InetAddress.getLoopbackAddress(), secret, placement, f, me == 0 ? args : args.withoutIo()));
                            }
                        } else {
                            m.run(spmd, Duration.ofSeconds(60));
                        }
                    } catch (FatalException e) {
                        failures[me] = e;
                    }
                }));
            }
            for (Thread t : threads) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new FatalException("hosted exec interrupted", e);
                }
            }
        }
        if (failures[0] != null) throw failures[0];
        for (FatalException f : failures) if (f != null) throw f;
    }
}
