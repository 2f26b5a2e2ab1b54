package org.lpf4j.superstep;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.ForwardingContext;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A test engine, {@code memory}: every process of an {@code exec} is a thread of this JVM, and the
 * superstep protocol runs between them over the in-memory transport ({@link MemoryTransport}),
 * without sockets or MPI. So the conformance suite tests the protocol itself. Its settings
 * (system properties, read at each exec): {@code lpf.test.memory.pairsInRoundUpTo} (default 4),
 * {@code lpf.test.memory.countExchange} (default auto), {@code lpf.test.memory.sparseFrom}
 * (default 5). Priority 1: chosen only by name.
 */
public final class MemoryEngine implements EngineProvider {
    /** For ServiceLoader. */
    public MemoryEngine() {}

    @Override public String name() { return "memory"; }
    @Override public Version frameworkApiVersion() { return new Version(1, 0, 0); }
    @Override public Version version() { return new Version(0, 1, 0); }
    @Override public Query query() { return Query.run(1); }
    @Override public int machineSize() { return 8; }

    private static ProtocolSettings settings() {
        return MemoryContext.settings(Integer.getInteger("lpf.test.memory.pairsInRoundUpTo", 4),
                System.getProperty("lpf.test.memory.countExchange", "auto"), Integer.getInteger("lpf.test.memory.sparseFrom", 5));
    }

    @Override
    public Context root() {
        MemoryContext self = new MemoryContext(new MemoryJob(1, 60_000, 1), 0, Args.NONE, CrossJvmObjects.forCurrentThread(),
                settings(), new ConcurrentHashMap<>());
        return new ForwardingContext(self) {
            @Override
            public void exec(int p, Spmd spmd, Args args) {
                JobRuntime.checkRootExec(p, spmd, args);
                int n = Math.min(p, machineSize());
                FatalException[] out = MemoryContext.run(new MemoryJob(n, machineSize(), 60_000, System.nanoTime()), settings(), spmd, args, 600_000);
                for (FatalException f : out) if (f != null) throw out[0] != null ? out[0] : f;
            }

            @Override
            public Machine probe() { return WholeJobProbe.probe("memory", machineSize(), (n, spmd) -> exec(n, spmd, Args.NONE)); }
        };
    }
}
