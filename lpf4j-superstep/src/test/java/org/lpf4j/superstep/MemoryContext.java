package org.lpf4j.superstep;

import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.BulkCopy;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.ProbeHarness;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * One process of an in-memory section: the superstep protocol over a {@link MemoryTransport},
 * each process a thread of this JVM. What a real engine adds (a child section for rehook and the
 * probe, a section of one process for a nested {@code exec}) is the same job's child, so an
 * engine over a new transport is this much code beside the transport.
 */
final class MemoryContext extends SuperstepContext {
    private final MemoryJob job;
    private final ProtocolSettings settings;
    private final Map<Integer, ProbeHarness.Fit> fits;
    private int children;

    MemoryContext(MemoryJob job, int rank, Args args, CrossJvmObjects objects, ProtocolSettings settings,
                  Map<Integer, ProbeHarness.Fit> fits) {
        super(job.transport(rank), args, objects, settings, "memory");
        this.job = job;
        this.settings = settings;
        this.fits = fits;
    }

    /** @return settings with these rules and the current copy */
    static ProtocolSettings settings(int pairsInRoundUpTo, String countExchange, int sparseFrom) {
        return new ProtocolSettings(pairsInRoundUpTo, countExchange, sparseFrom, BulkCopy.resolve());
    }

    /**
     * Runs {@code spmd} on every rank of {@code job}, one thread each, and returns every pid's
     * outcome; fails the calling test if a thread does not end within {@code joinMillis}.
     *
     * @return every pid's failure, or null where its part ended well
     */
    static FatalException[] run(MemoryJob job, ProtocolSettings settings, Spmd spmd, long joinMillis) {
        return run(job, settings, spmd, Args.NONE, joinMillis);
    }

    /** As {@link #run(MemoryJob, ProtocolSettings, Spmd, long)}, pid 0 with {@code args}, the others without their I/O. */
    static FatalException[] run(MemoryJob job, ProtocolSettings settings, Spmd spmd, Args args, long joinMillis) {
        Map<Integer, ProbeHarness.Fit> fits = new ConcurrentHashMap<>();
        int p = job.ranks;
        FatalException[] outcome = new FatalException[p];
        Throwable[] broken = new Throwable[p];
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            int rank = r;
            threads.add(Thread.ofPlatform().daemon().name("memory-" + p + "-pid" + r).start(() -> {
                try {
                    MemoryContext ctx = new MemoryContext(job, rank, rank == 0 ? args : args.withoutIo(), CrossJvmObjects.forSection(spmd),
                            settings, fits);
                    outcome[rank] = runProcess(ctx, spmd, "memory", "exec(p=" + p + ")");
                } catch (Throwable t) {
                    broken[rank] = t;
                }
            }));
        }
        long until = System.nanoTime() + joinMillis * 1_000_000L;
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, (until - System.nanoTime()) / 1_000_000L));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            if (t.isAlive()) throw new AssertionError(t.getName() + " still runs after " + joinMillis + " ms: a hang");
        }
        for (int r = 0; r < p; r++) if (broken[r] != null) throw new AssertionError("pid " + r + " broke outside its section", broken[r]);
        return outcome;
    }

    /** A child section over the same ranks: every rank asks for the same child number. */
    @Override
    protected FatalException runChild(Spmd spmd, Args args, String call) {
        MemoryJob child = job.child(children++);
        MemoryContext ctx = new MemoryContext(child, pid(), args, CrossJvmObjects.forSection(spmd), settings, fits);
        return runProcess(ctx, spmd, "memory", call);
    }

    @Override
    protected FatalException runAlone(Spmd spmd, Args args, String call) {
        MemoryContext ctx = new MemoryContext(new MemoryJob(1, 10_000, 1), 0, args, CrossJvmObjects.forSection(spmd), settings,
                new ConcurrentHashMap<>());
        return runProcess(ctx, spmd, "memory", call);
    }

    /** This process's share of the job's machine ({@link JobRuntime#share}), as a real engine's. */
    @Override protected int freeP() { return JobRuntime.share(job.machine, job.ranks, pid()); }

    @Override
    protected ProbeHarness.Fit probeFit(Supplier<ProbeHarness.Fit> measure) {
        int key = pid() * 65_536 + nprocs(); // per pid: no pid may skip a measurement the others make
        ProbeHarness.Fit f = fits.get(key);
        if (f == null) {
            f = measure.get();
            fits.put(key, f);
        }
        return f;
    }

    @Override protected String probeKey() { return "memory/" + nprocs(); }

    @Override protected long probeNanos() { return 20_000_000L; }

    @Override protected void closeEngine() {}
}
