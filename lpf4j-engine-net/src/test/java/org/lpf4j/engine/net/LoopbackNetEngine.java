package org.lpf4j.engine.net;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;
import org.lpf4j.spi.kit.BulkCopy;
import org.lpf4j.spi.kit.ForwardingContext;
import org.lpf4j.superstep.ProtocolSettings;
import org.lpf4j.superstep.WholeJobProbe;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A test engine, {@code netloop}: every process of an {@code exec} is a thread of this JVM with a
 * mesh of its own, connected to the others' over loopback TCP and authenticated like a real job's,
 * and runs the net engine's sections ({@link NetSections}) on it. So the conformance suite tests
 * the superstep protocol over the net transport, real sockets and all, before any JVM is started.
 * Priority 1: chosen only by name.
 */
public final class LoopbackNetEngine implements EngineProvider {
    static final ProtocolSettings PROTOCOL = new ProtocolSettings(Integer.getInteger("lpf.test.net.pairsInRoundUpTo", 4),
            System.getProperty("lpf.test.net.countExchange", "auto"), 8, BulkCopy.resolve());

    /** For ServiceLoader. */
    public LoopbackNetEngine() {}

    @Override public String name() { return "netloop"; }
    @Override public Version frameworkApiVersion() { return new Version(1, 0, 0); }
    @Override public Version version() { return new Version(0, 1, 0); }
    @Override public Query query() { return Query.run(1); }
    @Override public int machineSize() { return 8; }

    @Override
    public Context root() {
        NetSections alone = new NetSections(PROTOCOL, "netloop/root", 20_000_000L);
        NetContext self = new NetContext(null, new NetTransport(null, 0, 1), 0, Args.NONE,
                org.lpf4j.spi.kit.CrossJvmObjects.forCurrentThread(), alone, machineSize());
        return new ForwardingContext(self) {
            @Override
            public void exec(int p, Spmd spmd, Args args) {
                org.lpf4j.superstep.JobRuntime.checkRootExec(p, spmd, args);
                run(Math.min(p, machineSize()), spmd, args, 0);
            }

            @Override
            public Machine probe() { return WholeJobProbe.probe("netloop", machineSize(), (n, spmd) -> exec(n, spmd, Args.NONE)); }
        };
    }

    /**
     * Runs {@code spmd} on {@code p} threads, each with a mesh of its own over loopback.
     *
     * @param syncTimeoutMillis the meshes' deadline (0: none)
     */
    static void run(int p, Spmd spmd, Args args, long syncTimeoutMillis) {
        run(p, spmd, args, syncTimeoutMillis, PROTOCOL);
    }

    /** {@link #run(int, Spmd, Args, long)} with the protocol's settings {@code protocol}. */
    static void run(int p, Spmd spmd, Args args, long syncTimeoutMillis, ProtocolSettings protocol) {
        byte[] key = Handshake.newKey();
        long job = ThreadLocalRandom.current().nextLong();
        InetSocketAddress[] addresses = new InetSocketAddress[p];
        CyclicBarrier published = new CyclicBarrier(p);
        NetSections sections = new NetSections(protocol, "netloop/" + p, 20_000_000L);
        FatalException[] outcome = new FatalException[p];
        Throwable[] broken = new Throwable[p];
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            int rank = r;
            threads.add(Thread.ofPlatform().name("netloop-" + p + "-pid" + r).start(() -> {
                try (java.nio.channels.ServerSocketChannel server = p == 1 ? null
                        : java.nio.channels.ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), p)) {
                    Mesh mesh = null;
                    if (p > 1) {
                        addresses[rank] = (InetSocketAddress) server.getLocalAddress();
                        published.await(30, TimeUnit.SECONDS);
                        mesh = Mesh.connect(rank, p, key, job, server, Arrays.asList(addresses), 30_000, 20_000,
                                syncTimeoutMillis * 1_000_000L, System.err::println);
                    }
                    try (Mesh m = mesh) {
                        Args mine = rank == 0 ? args : args.withoutIo();
                        outcome[rank] = sections.run(m, m == null ? 0 : m.nextSection(), p, spmd, mine, "exec(p=" + p + ")",
                                org.lpf4j.superstep.JobRuntime.share(8, p, rank));
                    }
                } catch (Throwable t) {
                    broken[rank] = t;
                }
            }));
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        for (int r = 0; r < p; r++) {
            if (broken[r] != null) throw new FatalException("exec(p=" + p + "): pid " + r + "'s mesh failed: " + broken[r], broken[r]);
        }
        if (outcome[0] != null) throw outcome[0];
        for (FatalException f : outcome) if (f != null) throw f;
    }
}
