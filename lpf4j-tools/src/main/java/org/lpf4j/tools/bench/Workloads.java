package org.lpf4j.tools.bench;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The standard rows of {@code lpf bench}: empty sync, a put of a given size to the next pid,
 * total exchange of blocks, and a plain single-thread {@link MemorySegment#copy} as the reference
 * bandwidth; {@link #all()} adds the collectives, BSMP and debug-layer rows. Memory comes from
 * shared arenas (native memory).
 */
public final class Workloads {
    private Workloads() {}

    /** Name of the 1 MiB put row, the numerator of the bandwidth ratio. */
    public static final String PUT_1MIB = "1 MiB put to next pid + sync";
    /** Name of the copy row, the denominator of the bandwidth ratio. */
    public static final String COPY_1MIB = "MemorySegment.copy 1 MiB, 1 thread";
    /** Name of the copy row where every process copies at once: the machine's limit for p copies. */
    public static final String COPY_1MIB_AT_ONCE = "MemorySegment.copy 1 MiB, every process at once";
    /**
     * Name of the row of the copy the engines make ({@link org.lpf4j.spi.kit.BulkCopy}, as
     * {@code lpf.copy} resolves it in this JVM): the limit of a put's bandwidth, where the plain
     * copy rows are what a program would do without LPF.
     */
    public static final String COPY_1MIB_ENGINES = "engines' copy (lpf.copy) 1 MiB, 1 thread";
    /** Name of the 64 KiB copy row, the denominator of the total exchange's bandwidth ratio. */
    public static final String COPY_64KIB = "MemorySegment.copy 64 KiB, 1 thread";
    /** Name of the total exchange row of 64 KiB blocks. */
    public static final String EXCHANGE_64KIB = "64 KiB blocks to every pid + sync";
    /** Name of the raw reference of the sync rows: what the machine's cores take to hand a cache line back and forth. */
    public static final String ROUND_TRIP = "cache line there and back, 2 threads, no LPF";
    /** A round trip that takes longer than this means the partner is gone. */
    private static final long ROUND_TRIP_GIVE_UP_NANOS = 10_000_000_000L;

    private static final long MIB = 1 << 20;
    private static final long KIB = 1 << 10;

    /**
     * @return the rows in table order: empty sync (also oversubscribed), 8-byte put + sync,
     *         1 MiB put + sync, total exchange of 64 KiB blocks + sync, the 1 MiB and 64 KiB copies
     *         by one thread (p = 1), the 1 MiB copy by every process at once (p = 2 to 4), the
     *         engines' own copy of 1 MiB (p = 1) and the cache-line round trip (p = 2)
     */
    public static List<Workload> standard() {
        return List.of(emptySync(), putToNext("8 B put to next pid + sync", 8, Workload.Metric.MICROSECONDS),
                putToNext(PUT_1MIB, MIB, Workload.Metric.GIGABYTES_PER_SECOND), totalExchange(64 * KIB),
                copy(COPY_1MIB, MIB), copyAtOnce(COPY_1MIB_AT_ONCE, MIB), enginesCopy(COPY_1MIB_ENGINES, MIB),
                copy(COPY_64KIB, 64 * KIB), cacheLineRoundTrip());
    }

    /**
     * @return the ratio rows of the standard table: 1 MiB put bandwidth over one thread's copy,
     *         over every process's copy at once and over the engines' copy, the total exchange's over one thread's 64 KiB
     *         copy, and the empty sync over the cache-line round trip (p = 2)
     */
    public static List<SideBySide.Ratio> standardRatios() {
        return List.of(new SideBySide.Ratio("1 MiB put / copy bandwidth", PUT_1MIB, COPY_1MIB),
                new SideBySide.Ratio("1 MiB put / copy at once bandwidth", PUT_1MIB, COPY_1MIB_AT_ONCE),
                new SideBySide.Ratio("1 MiB put / engines' copy bandwidth", PUT_1MIB, COPY_1MIB_ENGINES),
                new SideBySide.Ratio("64 KiB exchange / copy bandwidth", EXCHANGE_64KIB, COPY_64KIB),
                new SideBySide.Ratio("empty sync / cache line there and back (time)", "empty sync", ROUND_TRIP));
    }

    /**
     * @return the rows of {@code lpf bench}: {@link #standard()}, then the collectives rows
     *         ({@link CollectiveWorkloads}), the BSMP rows ({@link BsmpWorkloads}) and the
     *         debug-layer rows ({@link DebugWorkloads})
     */
    public static List<Workload> all() {
        List<Workload> rows = new java.util.ArrayList<>(standard());
        rows.addAll(CollectiveWorkloads.rows());
        rows.addAll(BsmpWorkloads.rows());
        rows.addAll(DebugWorkloads.rows());
        return List.copyOf(rows);
    }

    /** @return the ratio rows of {@link #all()}, in the same order of groups */
    public static List<SideBySide.Ratio> allRatios() {
        List<SideBySide.Ratio> ratios = new java.util.ArrayList<>(standardRatios());
        ratios.addAll(CollectiveWorkloads.ratios());
        ratios.addAll(BsmpWorkloads.ratios());
        ratios.addAll(DebugWorkloads.ratios());
        return List.copyOf(ratios);
    }

    /** @return a superstep without requests, at every p (also more processes than cores) */
    public static Workload emptySync() { return new EmptySync(); }

    private static final class EmptySync extends Base {
        private static final long serialVersionUID = 1L;

        EmptySync() { super("empty sync", Workload.Metric.MICROSECONDS, 0); }

        @Override public boolean runsAt(int p) { return true; }

        @Override public long messages(int p) { return 0; }

        @Override public long amountPerStep(int p) { return 0; }

        @Override public Step prepare(Context ctx, Arena arena) { return ctx::sync; }
    }

    /**
     * @param name   the row's name
     * @param bytes  size of the put
     * @param metric how to report it
     * @return every process puts {@code bytes} from its source to the destination of pid + 1 (mod p), then syncs
     */
    public static Workload putToNext(String name, long bytes, Workload.Metric metric) {
        return new PutToNext(name, bytes, metric);
    }

    private static final class PutToNext extends Base {
        private static final long serialVersionUID = 1L;
        private final long bytes;

        PutToNext(String name, long bytes, Workload.Metric metric) {
            super(name, metric, 2);
            this.bytes = bytes;
        }

        @Override public long messages(int p) { return 1; }

        @Override public long amountPerStep(int p) { return bytes; }

        @Override
        public Step prepare(Context ctx, Arena arena) {
            Memslot src = ctx.registerGlobal(arena.allocate(bytes, 64));
            Memslot dst = ctx.registerGlobal(arena.allocate(bytes, 64));
            int next = (ctx.pid() + 1) % ctx.nprocs();
            return step(ctx, () -> {
                ctx.put(src, 0, next, dst, 0, bytes);
                ctx.sync();
            }, src, dst);
        }
    }

    /**
     * @param block bytes per destination
     * @return every process puts one block to every process (itself included) into that
     *         process's slot for it, then syncs: p blocks sent per process
     */
    public static Workload totalExchange(long block) { return new TotalExchange(block); }

    private static final class TotalExchange extends Base {
        private static final long serialVersionUID = 1L;
        private final long block;

        TotalExchange(long block) {
            super((block / KIB) + " KiB blocks to every pid + sync", Workload.Metric.GIGABYTES_PER_SECOND, 2);
            this.block = block;
        }

        @Override public long messages(int p) { return p; }

        @Override public long amountPerStep(int p) { return p * block; }

        @Override
        public Step prepare(Context ctx, Arena arena) {
            int p = ctx.nprocs();
            long offset = ctx.pid() * block;
            Memslot src = ctx.registerGlobal(arena.allocate(p * block, 64));
            Memslot dst = ctx.registerGlobal(arena.allocate(p * block, 64));
            return step(ctx, () -> {
                for (int q = 0; q < p; q++) ctx.put(src, q * block, q, dst, offset, block);
                ctx.sync();
            }, src, dst);
        }
    }

    /**
     * @param name  the row's name
     * @param bytes bytes per copy
     * @return a plain {@link MemorySegment#copy} between two native segments by one thread,
     *         without LPF (measured at p = 1 only)
     */
    public static Workload copy(String name, long bytes) { return new Copy(name, bytes, false); }

    /**
     * @param name  the row's name
     * @param bytes bytes per copy
     * @return every process copies between two native segments of its own at the same time,
     *         without LPF (measured at p = 2 to 4): the limit of p processes that copy, as the
     *         puts of a superstep do
     */
    public static Workload copyAtOnce(String name, long bytes) { return new Copy(name, bytes, true); }

    /**
     * @param name  the row's name
     * @param bytes bytes per copy
     * @return the copy the engines make of a request's bytes ({@link org.lpf4j.spi.kit.BulkCopy}
     *         as {@code lpf.copy} resolves it here) between two native segments by one thread,
     *         without LPF (measured at p = 1 only)
     */
    public static Workload enginesCopy(String name, long bytes) { return new Copy(name, bytes, false, true); }

    private static final class Copy extends Base {
        private static final long serialVersionUID = 1L;
        private final long bytes;
        private final boolean atOnce;
        /** Whether the copy is the engines' ({@link org.lpf4j.spi.kit.BulkCopy}) instead of MemorySegment.copy. */
        private final boolean engines;

        Copy(String name, long bytes, boolean atOnce) { this(name, bytes, atOnce, false); }

        Copy(String name, long bytes, boolean atOnce, boolean engines) {
            super(name, Workload.Metric.GIGABYTES_PER_SECOND, 0);
            this.bytes = bytes;
            this.atOnce = atOnce;
            this.engines = engines;
        }

        @Override public boolean runsAt(int p) { return atOnce ? p >= 2 && p <= 4 : p == 1; }

        @Override public long messages(int p) { return 0; }

        @Override public long amountPerStep(int p) { return bytes; }

        @Override
        public Step prepare(Context ctx, Arena arena) {
            MemorySegment src = arena.allocate(bytes, 64);
            MemorySegment dst = arena.allocate(bytes, 64);
            if (engines) {
                org.lpf4j.spi.kit.BulkCopy copy = org.lpf4j.spi.kit.BulkCopy.resolve();
                return () -> copy.copy(src, 0, dst, 0, bytes);
            }
            return () -> MemorySegment.copy(src, 0, dst, 0, bytes);
        }
    }

    /**
     * The raw reference for the sync rows at p = 2: the two processes' threads hand a cache line
     * back and forth (pid 0 writes, pid 1 answers on another line), with no LPF call in the step.
     * A p = 2 barrier needs about one such exchange, so {@code empty sync / this} shows lpf4j's
     * own cost, while the absolute time also moves with where the machine's scheduler (or
     * hypervisor) put the two threads. Valid only when the processes are threads of this JVM
     * (the in-JVM engines of this table); a partner that does not answer within 10 s ends the
     * step with an exception.
     *
     * @return the row
     */
    public static Workload cacheLineRoundTrip() { return new CacheLineRoundTrip(); }

    private static final class CacheLineRoundTrip extends Base {
        private static final long serialVersionUID = 1L;
        private static final int PING = 0, PONG = 16; // 128 bytes apart: separate cache lines
        /** Shared by the processes only while they are threads of one JVM (a copy elsewhere). */
        private final java.util.concurrent.atomic.AtomicLongArray lines = new java.util.concurrent.atomic.AtomicLongArray(32);

        CacheLineRoundTrip() { super(ROUND_TRIP, Workload.Metric.MICROSECONDS, 0); }

        @Override public boolean runsAt(int p) { return p == 2; }

        @Override public long messages(int p) { return 0; }

        @Override public long amountPerStep(int p) { return 0; }

        @Override
        public Step prepare(Context ctx, Arena arena) {
            // Every earlier step of every earlier section completed: both read the same count.
            long[] count = {lines.get(PING)};
            boolean first = ctx.pid() == 0;
            return () -> {
                long n = ++count[0];
                if (first) lines.set(PING, n);
                long started = System.nanoTime();
                for (int spins = 0; lines.get(first ? PONG : PING) != n; spins++) {
                    Thread.onSpinWait();
                    if ((spins & 1023) == 1023 && System.nanoTime() - started > ROUND_TRIP_GIVE_UP_NANOS) {
                        throw new IllegalStateException(ROUND_TRIP + ": pid " + (first ? 1 : 0)
                                + " did not answer within 10 s (are the processes threads of this JVM?)");
                    }
                }
                if (!first) lines.set(PONG, n);
            };
        }
    }

    /**
     * @param ctx   this process's context
     * @param run   the step
     * @param slots what the step's {@link Workload.Step#release()} deregisters, in this order
     * @return a step that runs {@code run} and releases {@code slots}
     */
    static Workload.Step step(Context ctx, Runnable run, Memslot... slots) {
        return new Workload.Step() {
            @Override public void run() { run.run(); }

            @Override public void release() { for (Memslot s : slots) ctx.deregister(s); }
        };
    }

    /** Name, metric and register needs; measured at p ≤ 4 unless overridden. */
    abstract static class Base implements Workload {
        private static final long serialVersionUID = 1L;
        private final String name;
        private final Metric metric;
        private final long registrations;

        Base(String name, Metric metric, long registrations) {
            this.name = name;
            this.metric = metric;
            this.registrations = registrations;
        }

        @Override public String name() { return name; }

        @Override public Metric metric() { return metric; }

        @Override public long registrations() { return registrations; }

        @Override public boolean runsAt(int p) { return p <= 4; }

        @Override public String toString() { return name; }
    }
}
