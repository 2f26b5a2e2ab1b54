package org.lpf4j.debug;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.spi.EngineProvider;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The programming errors that involve more than one process, provoked through
 * {@code Debug.wrap(Lpf.root(engine))} on every engine installed here (threads, and the kit's
 * own), and on the MPI and hybrid engines when an MPI job runs this class
 * ({@code DebugAcrossProcessesTest} in those modules; {@code lpf.conformance.engines} names the
 * engine there): each must come out of {@code exec} as the report naming the line of this file
 * where the offending call is, on whichever process and JVM the call was made; afterwards a
 * correct section runs on the same engine.
 *
 * <p>The line is recorded by every process on the line of the offending call (in a static:
 * pid 0 runs in this JVM on every engine), since the offender may live in another JVM.
 */
@Timeout(120)
class DebugAcrossProcessesTest {
    private static final String FILE = "DebugAcrossProcessesTest.java:";
    private static final AtomicInteger LINE = new AtomicInteger();

    /** @return (engine, p) for the engines of this run and p = 1 … 4 (at most lpf.conformance.maxP) */
    static Stream<Arguments> engineAndP() {
        return engineAndP(1);
    }

    /** @return (engine, p) for p ≥ 2 */
    static Stream<Arguments> engineAndManyP() {
        return engineAndP(2);
    }

    private static Stream<Arguments> engineAndP(int from) {
        String only = System.getProperty("lpf.conformance.engines", "").strip();
        List<String> wanted = only.isEmpty() ? List.of() : List.of(only.split("\\s*,\\s*"));
        int maxP = Integer.getInteger("lpf.conformance.maxP", 4);
        List<Arguments> list = new ArrayList<>();
        for (EngineProvider e : org.lpf4j.spi.Engines.installed()) {
            if (!wanted.isEmpty() && !wanted.contains(e.name())) continue;
            for (int p = from; p <= Math.min(4, maxP); p++) list.add(Arguments.of(e.name(), p));
        }
        return list.stream();
    }

    /** @return the caller's line number (call it on the line of the offending call) */
    static int line() {
        return StackWalker.getInstance().walk(s -> s.skip(1).findFirst().orElseThrow().getLineNumber());
    }

    static MemorySegment bytes(long n) { return MemorySegment.ofArray(new byte[(int) n]); }

    /** Sets the capacities and syncs. */
    static void setUp(Context ctx, long regs, long msgs) {
        ctx.resizeMemoryRegister(regs);
        ctx.resizeMessageQueue(msgs);
        ctx.sync();
    }

    /**
     * Runs a faulty section under the debug layer; asserts the report names the check, this
     * file's line recorded in {@link #LINE}, the offending pid and p; then runs a correct section.
     */
    private static LpfProgrammingError provoke(String engine, int p, Check check, int offender, Spmd spmd) {
        LINE.set(-1);
        Context root = Debug.wrap(Lpf.root(engine));
        FatalException e = assertThrows(FatalException.class, () -> root.exec(p, spmd));
        LpfProgrammingError report = assertInstanceOf(LpfProgrammingError.class, e, () -> "got " + e);
        String m = report.getMessage();
        assertEquals(check, report.check(), m);
        assertTrue(m.startsWith("lpf debug [" + check.tag() + "] "), m);
        assertTrue(LINE.get() > 0 && m.contains(FILE + LINE.get() + ")"), () -> "line " + LINE.get() + ": " + m);
        assertTrue(m.contains(" on pid " + offender + " of " + p + " (superstep "), m);
        correctSectionRuns(root, p);
        return report;
    }

    /** A ring of puts, checked: the layer and the engine are usable after a reported error. */
    private static void correctSectionRuns(Context root, int p) {
        long[] sum = new long[1];
        root.exec(p, ctx -> {
            int s = ctx.pid(), n = ctx.nprocs();
            setUp(ctx, 1, 1);
            MemorySegment x = MemorySegment.ofArray(new long[2]);
            x.setAtIndex(ValueLayout.JAVA_LONG, 0, s + 1);
            Memslot slot = ctx.registerGlobal(x);
            ctx.sync();
            ctx.put(slot, 0, (s + 1) % n, slot, 8, 8);
            ctx.sync();
            if (x.getAtIndex(ValueLayout.JAVA_LONG, 1) != (s + n - 1) % n + 1) throw new AssertionError("ring at pid " + s);
            ctx.deregister(slot);
            if (s == 0) sum[0] = x.getAtIndex(ValueLayout.JAVA_LONG, 1);
        });
        assertEquals(p, sum[0]);
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("engineAndP")
    void putToAPidThatDoesNotExist(String engine, int p) {
        LpfProgrammingError e = provoke(engine, p, Check.BAD_ARGUMENT, p - 1, ctx -> {
            setUp(ctx, 1, 1);
            Memslot x = ctx.registerGlobal(bytes(8));
            ctx.sync();
            LINE.set(line()); if (ctx.pid() == ctx.nprocs() - 1) ctx.put(x, 0, ctx.nprocs(), x, 0, 8);
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("dstPid not in [0, " + p + ")"), e.getMessage());
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("engineAndP")
    void getFromAPidThatDoesNotExist(String engine, int p) {
        LpfProgrammingError e = provoke(engine, p, Check.BAD_ARGUMENT, 0, ctx -> {
            setUp(ctx, 1, 1);
            Memslot x = ctx.registerGlobal(bytes(8));
            ctx.sync();
            LINE.set(line()); if (ctx.pid() == 0) ctx.get(-1, x, 0, x, 0, 8);
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("srcPid not in [0, " + p + ")"), e.getMessage());
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("engineAndP")
    void localSlotUsedAsTheRemoteSource(String engine, int p) {
        LpfProgrammingError e = provoke(engine, p, Check.LOCAL_SLOT_AS_REMOTE, p - 1, ctx -> {
            setUp(ctx, 2, 1);
            Memslot g = ctx.registerGlobal(bytes(8));
            Memslot l = ctx.registerLocal(bytes(8));
            ctx.sync();
            LINE.set(line()); if (ctx.pid() == ctx.nprocs() - 1) ctx.get(0, l, 0, g, 0, 8);
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("is a local slot"), e.getMessage());
    }

    /** The target registered less than the origin: only the target can tell, at the sync. */
    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("engineAndP")
    void putPastTheEndOfTheRemoteSlot(String engine, int p) {
        LpfProgrammingError e = provoke(engine, p, Check.OUT_OF_BOUNDS, 0, ctx -> {
            int last = ctx.nprocs() - 1;
            setUp(ctx, 1, 1);
            Memslot x = ctx.registerGlobal(bytes(ctx.pid() == last ? 8 : 16));
            ctx.sync();
            LINE.set(line()); if (ctx.pid() == 0) ctx.put(x, 0, last, x, 4, 8);
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("destination area [4, 12) exceeds the 8 bytes pid " + (p - 1) + " registered"),
                e.getMessage());
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("engineAndP")
    void getPastTheEndOfTheRemoteSlot(String engine, int p) {
        LpfProgrammingError e = provoke(engine, p, Check.OUT_OF_BOUNDS, p - 1, ctx -> {
            setUp(ctx, 1, 1);
            Memslot x = ctx.registerGlobal(bytes(ctx.pid() == 0 ? 8 : 16));
            ctx.sync();
            LINE.set(line()); if (ctx.pid() == ctx.nprocs() - 1) ctx.get(0, x, 8, x, 0, 8);
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("source area [8, 16) exceeds the 8 bytes pid 0 registered"), e.getMessage());
    }

    /** offset + size past Long.MAX_VALUE: reported by the layer, not by the engine's arithmetic. */
    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("engineAndP")
    void putWithARemoteOffsetThatOverflows(String engine, int p) {
        LpfProgrammingError e = provoke(engine, p, Check.OUT_OF_BOUNDS, 0, ctx -> {
            setUp(ctx, 1, 1);
            Memslot x = ctx.registerGlobal(bytes(16));
            ctx.sync();
            LINE.set(line()); if (ctx.pid() == 0) ctx.put(x, 0, ctx.nprocs() - 1, x, Long.MAX_VALUE - 3, 8);
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("(the end overflows a long) exceeds the 16 bytes pid " + (p - 1)), e.getMessage());
    }

    /**
     * Many requests to one target, more descriptors than travel beside the layer's record (they
     * are fetched in a second exchange, the layer's memory grows): the last one is past the end.
     */
    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("engineAndP")
    void oneBadPutAmongManyToOneTarget(String engine, int p) {
        int n = 300;
        LpfProgrammingError e = provoke(engine, p, Check.OUT_OF_BOUNDS, p - 1, ctx -> {
            boolean sender = ctx.pid() == ctx.nprocs() - 1;
            setUp(ctx, 2, n + 1);
            Memslot src = ctx.registerGlobal(bytes(8));
            Memslot dst = ctx.registerGlobal(bytes(8L * n));
            ctx.sync();
            for (int i = 0; sender && i < n - 1; i++) ctx.put(src, 0, 0, dst, 8L * i, 8);
            LINE.set(line()); if (sender) ctx.put(src, 0, 0, dst, 8L * n, 8);
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("destination area [" + 8 * n + ", " + (8 * n + 8) + ") exceeds the " + 8 * n
                + " bytes pid 0 registered"), e.getMessage());
    }

    /**
     * One process's put writes what another process's get reads, on a third process's memory (or
     * the second's): the target finds it; the report names the writer.
     */
    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("engineAndManyP")
    void readWriteConflictBetweenProcesses(String engine, int p) {
        int reader = p >= 3 ? 1 : 0;
        LpfProgrammingError e = provoke(engine, p, Check.READ_WRITE_CONFLICT, 0, ctx -> {
            int target = ctx.nprocs() - 1, getter = ctx.nprocs() >= 3 ? 1 : 0;
            setUp(ctx, 2, 2);
            Memslot x = ctx.registerGlobal(bytes(16));
            Memslot y = ctx.registerGlobal(bytes(16));
            ctx.sync();
            LINE.set(line()); if (ctx.pid() == 0) ctx.put(y, 0, target, x, 0, 8); // writes x[0, 8) of target
            if (ctx.pid() == getter) ctx.get(target, x, 4, y, 8, 8);              // reads x[4, 12) of target
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("put by pid 0 at DebugAcrossProcessesTest.readWriteConflictBetweenProcesses("
                + FILE), e.getMessage());
        assertTrue(e.getMessage().contains("writes memory of pid " + (p - 1) + " that get by pid " + reader), e.getMessage());
    }

    /** Every process puts one request to pid 0: each queue holds its own, pid 0's not all of them. */
    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("engineAndManyP")
    void moreRequestsArriveThanTheTargetsQueueHolds(String engine, int p) {
        LpfProgrammingError e = provoke(engine, p, Check.QUEUE_CAPACITY, 1, ctx -> {
            setUp(ctx, 1, 1);
            Memslot x = ctx.registerGlobal(bytes(8L * ctx.nprocs()));
            ctx.sync();
            LINE.set(line()); ctx.put(x, 0, 0, x, 8L * ctx.pid(), 8);
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("pid 0 is the target of " + p + " requests this superstep but its message queue"
                + " holds 1"), e.getMessage());
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("engineAndManyP")
    void globalRegistrationsDifferInNumber(String engine, int p) {
        LpfProgrammingError e = provoke(engine, p, Check.COLLECTIVE_MISMATCH, p - 1, ctx -> {
            setUp(ctx, 3, 0);
            Memslot a = ctx.registerGlobal(bytes(8));
            Memslot b = ctx.pid() == ctx.nprocs() - 1 ? ctx.registerGlobal(bytes(4)) : null;
            LINE.set(line()); ctx.sync();
            ctx.deregister(a);
            if (b != null) ctx.deregister(b);
        });
        assertTrue(e.getMessage().matches(".*pid 0 made \\[registerGlobal\\(8 B\\) at [^,]*\\], pid " + (p - 1)
                + " made \\[registerGlobal\\(8 B\\) at .*, registerGlobal\\(4 B\\) at .*\\].*"), e.getMessage());
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("engineAndManyP")
    void globalDeregistrationsDifferInOrder(String engine, int p) {
        LpfProgrammingError e = provoke(engine, p, Check.COLLECTIVE_MISMATCH, 1, ctx -> {
            setUp(ctx, 2, 0);
            Memslot a = ctx.registerGlobal(bytes(8));
            Memslot b = ctx.registerGlobal(bytes(8));
            ctx.sync();
            if (ctx.pid() == 1) {
                ctx.deregister(b);
                ctx.deregister(a);
            } else {
                ctx.deregister(a);
                ctx.deregister(b);
            }
            LINE.set(line()); ctx.sync();
        });
        assertTrue(e.getMessage().contains("differ in order or number"), e.getMessage());
    }

    /** One process returns from its SPMD function while the others make one more sync. */
    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("engineAndManyP")
    void aSyncThatNotEveryProcessMakes(String engine, int p) {
        int first = p > 2 ? 0 : 1;
        LpfProgrammingError e = provoke(engine, p, Check.UNEQUAL_SYNCS, first, ctx -> {
            int quitter = ctx.nprocs() > 2 ? 1 : 0;
            setUp(ctx, 0, 0);
            LINE.set(line()); if (ctx.pid() != quitter) ctx.sync();
        });
        assertTrue(e.getMessage().contains("pid(s) [" + (p > 2 ? 1 : 0) + "] returned from the SPMD function instead of"
                + " making this sync"), e.getMessage());
    }
}
