package org.lpf4j.superstep;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.WireCounts;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.Serializable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The superstep protocol over the in-memory transport ({@link MemoryTransport}): p processes as
 * threads, every way a sync's meta-data can travel (streams before the round; after it by an
 * all-to-all or by the consensus), each under several seeds of the transport's permitted
 * reorderings. The rules: the round, gets served before any write, puts applied in the fixed
 * order (source pid, queue order) so conflicting writes serialise, inline and large puts alike,
 * combining puts, and faults (a peer that vanishes or stops mid-superstep) ending in a
 * {@link FatalException} at the others' next sync, never a hang.
 */
class MemoryProtocolTest {
    private static final long JOIN = 60_000;

    /** The ways counts travel: streams before the round, then dense, forced sparse, and auto with sparseFrom 1. */
    private static final ProtocolSettings[] WAYS = {
            MemoryContext.settings(16, "auto", 64),
            MemoryContext.settings(0, "dense", 64),
            MemoryContext.settings(0, "sparse", 64),
            MemoryContext.settings(1, "auto", 1)};

    static Stream<Arguments> waysAndP() {
        List<Arguments> a = new ArrayList<>();
        for (int w = 0; w < WAYS.length; w++) for (int p : new int[]{1, 2, 3, 4, 5, 8}) a.add(Arguments.of(w, p));
        return a.stream();
    }

    /** Runs {@code spmd} on p threads under three seeds; every pid must end well. */
    private static void passes(int way, int p, Spmd spmd) {
        for (long seed = 1; seed <= 3; seed++) {
            FatalException[] out = MemoryContext.run(new MemoryJob(p, 30_000, seed * 7919 + p), WAYS[way], spmd, JOIN);
            for (int r = 0; r < p; r++) {
                if (out[r] != null) throw new AssertionError("seed " + seed + ", pid " + r + ": " + out[r].getMessage(), out[r]);
            }
        }
    }

    private static MemorySegment longs(int n) { return Arena.ofAuto().allocate(8L * n, 8); }

    @ParameterizedTest(name = "way {0} p={1}")
    @MethodSource("waysAndP")
    void emptySuperstepsKeepEveryProcessInStep(int way, int p) {
        passes(way, p, ctx -> {
            for (int i = 0; i < 20; i++) {
                assertEquals(i, ctx.superstep());
                ctx.sync();
            }
        });
    }

    @ParameterizedTest(name = "way {0} p={1}")
    @MethodSource("waysAndP")
    void getsReadTheOwnersMemoryBeforeAnyWriteOfTheSuperstep(int way, int p) {
        passes(way, p, ctx -> {
            int me = ctx.pid(), next = (me + 1) % p;
            MemorySegment mine = longs(1), got = longs(1), src = longs(1);
            ctx.resizeMemoryRegister(3);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot m = ctx.registerGlobal(mine), g = ctx.registerLocal(got), s = ctx.registerLocal(src);
            mine.set(ValueLayout.JAVA_LONG, 0, 10L * (me + 1));
            src.set(ValueLayout.JAVA_LONG, 0, -1);
            ctx.sync();
            ctx.put(s, 0, next, m, 0, 8);        // overwrites next's value ...
            ctx.get(next, m, 0, g, 0, 8);        // ... which this get reads first
            ctx.sync();
            assertEquals(10L * (next + 1), got.get(ValueLayout.JAVA_LONG, 0), "the get saw a write of its own superstep");
            assertEquals(-1, mine.get(ValueLayout.JAVA_LONG, 0));
        });
    }

    /** Every process writes the same area of pid 0 twice, inline ({@code size} small) or large: pid p-1's second put wins. */
    @ParameterizedTest(name = "way {0} p={1}")
    @MethodSource("waysAndP")
    void conflictingWritesEndInTheFixedOrder(int way, int p) {
        for (int size : new int[]{64, 40_000}) {
            passes(way, p, ctx -> {
                int me = ctx.pid();
                MemorySegment target = Arena.ofAuto().allocate(size), a = Arena.ofAuto().allocate(size), b = Arena.ofAuto().allocate(size);
                a.fill((byte) (2 * me + 1));
                b.fill((byte) (2 * me + 2));
                ctx.resizeMemoryRegister(3);
                ctx.resizeMessageQueue(2L * p);
                ctx.sync();
                Memslot t = ctx.registerGlobal(target), sa = ctx.registerLocal(a), sb = ctx.registerLocal(b);
                ctx.sync();
                ctx.put(sa, 0, 0, t, 0, size);
                ctx.put(sb, 0, 0, t, 0, size);
                ctx.sync();
                if (me == 0) {
                    for (long k = 0; k < size; k++) assertEquals((byte) (2 * p), target.get(ValueLayout.JAVA_BYTE, k), "byte " + k);
                }
            });
        }
    }

    /** A large put to every process and an overlapping small one after it: the small one lands last. */
    @ParameterizedTest(name = "way {0} p={1}")
    @MethodSource("waysAndP")
    void aLargePutAndALaterSmallOneOverItSerialise(int way, int p) {
        passes(way, p, ctx -> {
            int me = ctx.pid(), n = 1 << 20;
            MemorySegment target = Arena.ofAuto().allocate(n), big = Arena.ofAuto().allocate(n), small = Arena.ofAuto().allocate(16);
            for (int k = 0; k < n; k += 8) big.set(ValueLayout.JAVA_LONG, k, (long) me << 32 | k);
            small.fill((byte) 0x5a);
            ctx.resizeMemoryRegister(3);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot t = ctx.registerGlobal(target), sb = ctx.registerLocal(big), ss = ctx.registerLocal(small);
            ctx.sync();
            int to = (me + 1) % p;
            ctx.put(sb, 0, to, t, 0, n);
            ctx.put(ss, 0, to, t, 4096, 16);
            ctx.sync();
            int from = (me - 1 + p) % p;
            for (int k = 0; k < n; k += 8) {
                long want = k >= 4096 && k < 4096 + 16 ? 0x5a5a5a5a5a5a5a5aL : (long) from << 32 | k;
                if (target.get(ValueLayout.JAVA_LONG, k) != want) throw new AssertionError("offset " + k + " from pid " + from);
            }
        });
    }

    /** A sum into every process from every process, three times: combined whatever order the contributions arrive in. */
    @ParameterizedTest(name = "way {0} p={1}")
    @MethodSource("waysAndP")
    void combiningPutsSumAtTheDestination(int way, int p) {
        passes(way, p, ctx -> {
            int me = ctx.pid(), n = 300;
            MsgAttr sum = MsgAttr.combining(8, new Sum());
            MemorySegment src = longs(n), sums = longs(n);
            Memslot[] st = localAndGlobal(ctx, src, sums, p);
            Memslot s = st[0], t = st[1];
            for (int round = 0; round < 3; round++) {
                for (int k = 0; k < n; k++) src.setAtIndex(ValueLayout.JAVA_LONG, k, (me + 1) * 1000L + k + round);
                sums.fill((byte) 0);
                ctx.sync();
                for (int d = 0; d < p; d++) ctx.put(s, 0, d, t, 0, 8L * n, sum);
                ctx.sync();
                for (int k = 0; k < n; k++) {
                    long want = 1000L * p * (p + 1) / 2 + (long) p * (k + round);
                    assertEquals(want, sums.getAtIndex(ValueLayout.JAVA_LONG, k), "element " + k + " in round " + round);
                }
            }
        });
    }

    /**
     * A new operator object for every superstep (a lambda per reduction), each to the root of that
     * superstep, in turn: a destination is sent the one definition its put uses, never those the
     * source made for other destinations (the header bytes of every superstep are the same), and
     * neither side keeps more definitions than the table recycles.
     */
    @ParameterizedTest(name = "way {0} p={1}")
    @MethodSource("waysAndP")
    void aRootIsSentOnlyTheOperatorItsPutsUseAndTablesStayBounded(int way, int p) {
        passes(way, p, ctx -> {
            int me = ctx.pid(), steps = Math.max(3 * p, CombinerTable.RECYCLE_AT + 2 * p);
            MemorySegment one = longs(1), sum = longs(1);
            Memslot[] st = localAndGlobal(ctx, one, sum, p);
            Memslot s = st[0], t = st[1];
            WireCounts wire = WireCounts.of(ctx);
            long firstHeader = -1;
            for (int k = 0; k < steps; k++) {
                int root = k % p;
                one.set(ValueLayout.JAVA_LONG, 0, me + 1L + k);
                sum.set(ValueLayout.JAVA_LONG, 0, 0);
                ctx.sync();
                long before = wire.get(WireCounts.HEADER_BYTES);
                ctx.put(s, 0, root, t, 0, 8, MsgAttr.combining(8, new Sum()));
                ctx.sync();
                long header = wire.get(WireCounts.HEADER_BYTES) - before;
                if (me != root) { // a put to itself sends nothing
                    if (firstHeader < 0) firstHeader = header;
                    assertEquals(firstHeader, header, "header bytes of pid " + me + "'s put to root " + root + " in superstep " + k);
                }
                if (me == root) assertEquals((long) p * (p + 1) / 2 + (long) p * k, sum.get(ValueLayout.JAVA_LONG, 0), "sum at root " + root);
            }
            CombinerTable table = ((SuperstepContext) ctx).combiners();
            assertTrue(table.defined() <= CombinerTable.RECYCLE_AT, "pid " + me + " defined " + table.defined() + " ids for " + steps + " operators");
            for (int q = 0; q < p; q++) {
                assertTrue(table.receivedFrom(q) <= CombinerTable.RECYCLE_AT, "pid " + me + " keeps " + table.receivedFrom(q) + " definitions of pid " + q);
            }
        });
    }

    /**
     * More distinct operators in one superstep than the table recycles at, for three supersteps:
     * every put combines with its own operator, also after ids defined for other operators in an
     * earlier superstep were given to new ones.
     */
    @ParameterizedTest(name = "way {0} p={1}")
    @MethodSource("waysAndP")
    void moreOperatorsThanTheTableRecyclesAtEachCombineWithTheirOwn(int way, int p) {
        int n = CombinerTable.RECYCLE_AT + 36;
        passes(way, p, ctx -> {
            int me = ctx.pid(), to = (me + 1) % p, from = (me + p - 1) % p;
            MemorySegment src = longs(n), dst = longs(n);
            Memslot[] st = localAndGlobal(ctx, src, dst, n);
            Memslot s = st[0], t = st[1];
            for (int step = 0; step < 3; step++) {
                for (int k = 0; k < n; k++) {
                    src.setAtIndex(ValueLayout.JAVA_LONG, k, me + 1L);
                    dst.setAtIndex(ValueLayout.JAVA_LONG, k, 5);
                }
                ctx.sync();
                for (int k = 0; k < n; k++) ctx.put(s, 8L * k, to, t, 8L * k, 8, MsgAttr.combining(8, new Scaled(k + 1000L * step)));
                ctx.sync();
                for (int k = 0; k < n; k++) {
                    assertEquals(5 + (k + 1000L * step) * (from + 1), dst.getAtIndex(ValueLayout.JAVA_LONG, k),
                            "element " + k + " of superstep " + step + " at pid " + me);
                }
            }
        });
    }

    /** A superstep of sends to one neighbour each, many times: the streams of consecutive supersteps never mix. */
    @ParameterizedTest(name = "way {0} p={1}")
    @MethodSource("waysAndP")
    void aRingKeepsItsValuesAcrossManySupersteps(int way, int p) {
        passes(way, p, ctx -> {
            int me = ctx.pid();
            MemorySegment in = longs(1), out = longs(1);
            Memslot[] oi = localAndGlobal(ctx, out, in, 2);
            Memslot o = oi[0], i = oi[1];
            for (int step = 0; step < 30; step++) {
                out.set(ValueLayout.JAVA_LONG, 0, step * 100L + me);
                ctx.put(o, 0, (me + 1) % p, i, 0, 8);
                ctx.sync();
                assertEquals(step * 100L + (me - 1 + p) % p, in.get(ValueLayout.JAVA_LONG, 0), "step " + step);
            }
        });
    }

    @ParameterizedTest(name = "p={0}")
    @MethodSource("faultP")
    void aPeerThatVanishesMidSuperstepFailsTheOthersNextSync(int p, long calls) {
        MemoryJob job = new MemoryJob(p, 30_000, p);
        job.vanishAfter(p - 1, calls);
        FatalException[] out = MemoryContext.run(job, WAYS[1], ringOfPuts(), JOIN);
        for (int r = 0; r < p; r++) {
            assertNotNull(out[r], "pid " + r + " saw no failure");
            if (r != p - 1) assertTrue(out[r].getMessage().contains("pid " + (p - 1)), out[r].getMessage());
        }
    }

    /**
     * A process whose transport throws an error mid-superstep (a buffer it cannot allocate) leaves
     * transfers of that superstep pending: its section still ends as a failure that carries the
     * error, at every process, rather than the process breaking with "transfers pending", which
     * hid the error; and it ends at once, not by a deadline: the process leaves the section
     * ({@link Transport#leave}), so the others do not wait for what it will not send (before,
     * only the deadline ended their waits, and without one they waited forever).
     */
    @ParameterizedTest(name = "p={0}, after {1} calls")
    @MethodSource("faultP")
    void aProcessWhoseTransportThrowsMidSuperstepReportsThatError(int p, long calls) {
        MemoryJob job = new MemoryJob(p, 60_000, p);
        String injected = "Cannot reserve 65536 bytes of direct buffer memory (injected at pid " + (p - 1) + ")";
        job.failOnceAfter(p - 1, calls, new OutOfMemoryError(injected));
        long t0 = System.nanoTime();
        FatalException[] out = MemoryContext.run(job, WAYS[1], ringOfPuts(), JOIN);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        // MemoryContext.run has checked that no process broke outside its section.
        for (int r = 0; r < p; r++) {
            assertNotNull(out[r], "pid " + r + " saw no failure");
            String chain = chain(out[r]);
            assertTrue(chain.contains(injected), "pid " + r + "'s failure: " + chain);
        }
        assertTrue(millis < 20_000, "the section ended " + millis + " ms after it started: by the deadline, not at once");
    }

    /** @return the messages of {@code t}, its causes and their suppressed ones */
    private static String chain(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c).append(" | ");
            for (Throwable s : c.getSuppressed()) b.append("suppressed ").append(s).append(" | ");
        }
        return b.toString();
    }

    static Stream<Arguments> faultP() {
        List<Arguments> a = new ArrayList<>();
        for (int p : new int[]{2, 3, 4, 5, 8}) for (long calls : new long[]{0, 3, 7, 12}) a.add(Arguments.of(p, calls));
        return a.stream();
    }

    @ParameterizedTest(name = "p={0}")
    @MethodSource("stopP")
    void aPeerThatStopsMidSuperstepIsNamedWhenTheDeadlinePasses(int p) throws InterruptedException {
        CountDownLatch resume = new CountDownLatch(1), named = new CountDownLatch(p - 1);
        MemoryJob job = new MemoryJob(p, 1_000, p);
        FatalException[] out = MemoryContext.run(job, WAYS[1], ctx -> {
            int me = ctx.pid();
            Memslot s = oneGlobal(ctx, longs(1));
            ctx.put(s, 0, (me + 1) % p, s, 0, 8);
            if (me == p - 1) {
                try {
                    resume.await(30, TimeUnit.SECONDS); // stopped, like a kill -STOP
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            try {
                ctx.sync();
            } finally {
                if (me != p - 1) {
                    named.countDown();
                    if (named.getCount() == 0) resume.countDown();
                }
            }
        }, JOIN);
        for (int r = 0; r < p; r++) assertNotNull(out[r], "pid " + r + " saw no failure");
        assertTrue(out[0].getMessage().contains("" + (p - 1)), out[0].getMessage());
    }

    static Stream<Integer> stopP() { return Stream.of(2, 3, 4, 5, 8); }

    /** Registers {@code v} as the only global slot, with room for two requests per superstep. */
    private static Memslot oneGlobal(Context ctx, MemorySegment v) {
        ctx.resizeMemoryRegister(1);
        ctx.resizeMessageQueue(2);
        ctx.sync();
        Memslot s = ctx.registerGlobal(v);
        ctx.sync();
        return s;
    }

    /**
     * Registers {@code src} as a local slot and {@code dst} as a global one, with room for
     * {@code requests} requests per superstep.
     *
     * @return the two slots, local first
     */
    private static Memslot[] localAndGlobal(Context ctx, MemorySegment src, MemorySegment dst, long requests) {
        ctx.resizeMemoryRegister(2);
        ctx.resizeMessageQueue(requests);
        ctx.sync();
        Memslot local = ctx.registerLocal(src), global = ctx.registerGlobal(dst);
        ctx.sync();
        return new Memslot[] {local, global};
    }

    /** Puts to the next process in every superstep, ten times. */
    private static Spmd ringOfPuts() {
        return ctx -> {
            int p = ctx.nprocs(), me = ctx.pid();
            Memslot s = oneGlobal(ctx, longs(64));
            for (int i = 0; i < 10; i++) {
                ctx.put(s, 0, (me + 1) % p, s, 256, 256);
                ctx.sync();
            }
        };
    }

    @ParameterizedTest(name = "way {0} p={1}")
    @MethodSource("waysAndP")
    void rehookStartsAFreshSectionOverTheSameProcesses(int way, int p) {
        passes(way, p, ctx -> {
            ctx.sync();
            ctx.rehook((Context inner) -> {
                assertEquals(p, inner.nprocs());
                assertEquals(0, inner.superstep());
                inner.sync();
            }, org.lpf4j.Args.NONE);
        });
    }

    @ParameterizedTest(name = "p={0}")
    @MethodSource("stopP")
    void aProcessThatThrowsFailsTheSectionAndItsCauseReachesPid0(int p) {
        FatalException[] out = MemoryContext.run(new MemoryJob(p, 30_000, 5), WAYS[0], ctx -> {
            if (ctx.pid() == p - 1) throw new IllegalStateException("pid " + ctx.pid() + " gives up");
            ctx.sync();
        }, JOIN);
        for (int r = 0; r < p; r++) assertNotNull(out[r]);
        Throwable cause = out[0].getCause();
        assertNotNull(cause, out[0].getMessage());
        assertTrue(cause.getMessage().contains("gives up"), cause.toString());
    }

    @ParameterizedTest(name = "p={0}")
    @MethodSource("stopP")
    void aSectionThatEndsWellReportsNothing(int p) {
        FatalException[] out = MemoryContext.run(new MemoryJob(p, 30_000, 9), WAYS[2], ctx -> ctx.sync(), JOIN);
        for (FatalException f : out) assertNull(f);
    }

    /** dst += factor · src, element by element: a different operator per factor. */
    record Scaled(long factor) implements MsgAttr.ElementCombiner, Serializable {
        @Override
        public void combine(long n, MemorySegment src, long so, MemorySegment dst, long d) {
            for (long k = 0; k < n; k++) {
                dst.set(ValueLayout.JAVA_LONG, d + 8 * k, dst.get(ValueLayout.JAVA_LONG, d + 8 * k) + factor * src.get(ValueLayout.JAVA_LONG, so + 8 * k));
            }
        }
    }

    static final class Sum implements MsgAttr.ElementCombiner, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public void combine(long n, MemorySegment src, long so, MemorySegment dst, long d) {
            for (long k = 0; k < n; k++) dst.set(ValueLayout.JAVA_LONG, d + 8 * k, dst.get(ValueLayout.JAVA_LONG, d + 8 * k) + src.get(ValueLayout.JAVA_LONG, so + 8 * k));
        }
    }
}
