package org.lpf4j.debug;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.engine.threads.ThreadsEngine;
import org.lpf4j.spi.Parameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

import static org.lpf4j.debug.DebugAcrossProcessesTest.bytes;
import static org.lpf4j.debug.DebugAcrossProcessesTest.line;
import static org.lpf4j.debug.DebugAcrossProcessesTest.setUp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One test per check of the debug layer: provoke the error, assert the report. */
@Timeout(30)
class DebugChecksTest {
    private static final String FILE = "DebugChecksTest.java:";

    /** Runs a faulty section and returns the report, checking it names the check and the line. */
    private static LpfProgrammingError provoke(int p, Check check, AtomicInteger line, Spmd spmd) {
        FatalException e = assertThrows(FatalException.class, () -> Debug.wrap(ThreadsEngine.root()).exec(p, spmd));
        LpfProgrammingError report = assertInstanceOf(LpfProgrammingError.class, e, () -> "got " + e);
        assertEquals(check, report.check(), report.getMessage());
        assertTrue(report.getMessage().startsWith("lpf debug [" + check.tag() + "] "), report.getMessage());
        if (line != null) assertTrue(report.getMessage().contains(FILE + line.get() + ")"), report.getMessage());
        assertTrue(report.getMessage().contains(" of " + p + " (superstep "), report.getMessage());
        return report;
    }

    @Test
    void slotUsedBeforeTheSyncThatActivatesIt() {
        AtomicInteger line = new AtomicInteger();
        LpfProgrammingError e = provoke(2, Check.INACTIVE_SLOT, line, ctx -> {
            setUp(ctx, 1, 1);
            Memslot x = ctx.registerGlobal(bytes(8));
            line.set(line()); ctx.put(x, 0, 1 - ctx.pid(), x, 0, 8);
        });
        assertTrue(e.getMessage().contains("usable only after the next sync"), e.getMessage());
    }

    @Test
    void localSlotAsRemoteDestination() {
        AtomicInteger line = new AtomicInteger();
        LpfProgrammingError e = provoke(2, Check.LOCAL_SLOT_AS_REMOTE, line, ctx -> {
            setUp(ctx, 2, 1);
            Memslot g = ctx.registerGlobal(bytes(8));
            Memslot l = ctx.registerLocal(bytes(8));
            ctx.sync();
            if (ctx.pid() == 1) { line.set(line()); ctx.put(g, 0, 0, l, 0, 8); }
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("dstSlot local#0(8 B) is a local slot"), e.getMessage());
        assertTrue(e.getMessage().contains("on pid 1 of 2"), e.getMessage());
    }

    @Test
    void localAreaPastTheRegisteredMemory() {
        AtomicInteger line = new AtomicInteger();
        LpfProgrammingError e = provoke(1, Check.OUT_OF_BOUNDS, line, ctx -> {
            setUp(ctx, 2, 1);
            Memslot g = ctx.registerGlobal(bytes(16));
            Memslot l = ctx.registerLocal(bytes(8));
            ctx.sync();
            line.set(line()); ctx.put(l, 4, 0, g, 0, 8);
        });
        assertTrue(e.getMessage().contains("source area [4, 12) exceeds the 8 bytes registered for local#0(8 B)"),
                e.getMessage());
    }

    @Test
    void remoteAreaPastWhatTheTargetRegistered() {
        AtomicInteger line = new AtomicInteger();
        LpfProgrammingError e = provoke(3, Check.OUT_OF_BOUNDS, line, ctx -> {
            setUp(ctx, 1, 3);
            Memslot x = ctx.registerGlobal(bytes(ctx.pid() == 2 ? 8 : 16)); // pid 2 registers less
            ctx.sync();
            if (ctx.pid() == 0) { line.set(line()); ctx.put(x, 0, 2, x, 4, 8); }
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("destination area [4, 12) exceeds the 8 bytes pid 2 registered"), e.getMessage());
        assertTrue(e.getMessage().contains("on pid 0 of 3"), e.getMessage());
    }

    @Test
    void messageQueueFullLocally() {
        AtomicInteger line = new AtomicInteger();
        LpfProgrammingError e = provoke(2, Check.QUEUE_CAPACITY, line, ctx -> {
            setUp(ctx, 1, 1);
            Memslot x = ctx.registerGlobal(bytes(16));
            ctx.sync();
            ctx.put(x, 0, 1 - ctx.pid(), x, 8, 8);
            line.set(line()); ctx.put(x, 0, 1 - ctx.pid(), x, 8, 8);
        });
        assertTrue(e.getMessage().contains("message queue full: 1 of 1 requests"), e.getMessage());
    }

    @Test
    void messageQueueFullAtTheTarget() {
        AtomicInteger line = new AtomicInteger();
        LpfProgrammingError e = provoke(3, Check.QUEUE_CAPACITY, line, ctx -> {
            setUp(ctx, 1, 1);
            Memslot x = ctx.registerGlobal(bytes(24));
            ctx.sync();
            if (ctx.pid() == 2) { line.set(line()); ctx.put(x, 0, 0, x, 8L * ctx.pid(), 8); }
            if (ctx.pid() == 1) ctx.put(x, 0, 0, x, 8L * ctx.pid(), 8);
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("pid 0 is the target of 2 requests this superstep but its message queue holds 1"),
                e.getMessage());
    }

    @Test
    void memoryRegisterFull() {
        AtomicInteger line = new AtomicInteger();
        LpfProgrammingError e = provoke(1, Check.REGISTER_CAPACITY, line, ctx -> {
            setUp(ctx, 1, 0);
            ctx.registerLocal(bytes(8));
            line.set(line()); ctx.registerLocal(bytes(8));
        });
        assertTrue(e.getMessage().contains("memory register full: 1 of 1 slots in use"), e.getMessage());
    }

    @Test
    void globalRegistrationsDifferInNumber() {
        AtomicInteger line = new AtomicInteger();
        LpfProgrammingError e = provoke(2, Check.COLLECTIVE_MISMATCH, line, ctx -> {
            setUp(ctx, 2, 0);
            ctx.registerGlobal(bytes(8));
            if (ctx.pid() == 0) ctx.registerGlobal(bytes(8));
            line.set(line()); ctx.sync();
        });
        assertTrue(e.getMessage().matches(".*pid 0 made \\[registerGlobal\\(8 B\\) at .*, registerGlobal\\(8 B\\) at .*\\],"
                + " pid 1 made \\[registerGlobal\\(8 B\\) at [^,]*\\].*"), e.getMessage());
    }

    @Test
    void globalRegistrationsDifferInOrder() {
        LpfProgrammingError e = provoke(3, Check.COLLECTIVE_MISMATCH, null, ctx -> {
            setUp(ctx, 2, 0);
            Memslot a = ctx.registerGlobal(bytes(8));
            ctx.sync();
            if (ctx.pid() == 2) {
                ctx.registerGlobal(bytes(8));
                ctx.deregister(a);
            } else {
                ctx.deregister(a);
                ctx.registerGlobal(bytes(8));
            }
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("pid 2 made [registerGlobal(8 B) at"), e.getMessage());
    }

    @Test
    void putSourceWrittenByAnotherRequestOfTheSuperstep() {
        AtomicInteger line = new AtomicInteger();
        LpfProgrammingError e = provoke(2, Check.READ_WRITE_CONFLICT, line, ctx -> {
            setUp(ctx, 1, 2);
            Memslot x = ctx.registerGlobal(bytes(16));
            ctx.sync();
            if (ctx.pid() == 0) ctx.put(x, 8, 1, x, 0, 8);               // writes x[0, 8) of pid 1
            if (ctx.pid() == 1) { line.set(line()); ctx.put(x, 4, 0, x, 0, 8); } // reads x[4, 12) of pid 1
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("put by pid 0 at DebugChecksTest.putSourceWrittenByAnotherRequestOfTheSuperstep("
                + FILE), e.getMessage());
        assertTrue(e.getMessage().contains("writes memory of pid 1 that put by pid 1 at"), e.getMessage());
    }

    @Test
    void getDestinationReadByAnotherRequestOfTheSuperstep() {
        LpfProgrammingError e = provoke(2, Check.READ_WRITE_CONFLICT, null, ctx -> {
            setUp(ctx, 1, 2);
            Memslot x = ctx.registerGlobal(bytes(16));
            ctx.sync();
            if (ctx.pid() == 0) {
                ctx.get(1, x, 0, x, 0, 8);  // writes x[0, 8) of pid 0
                ctx.put(x, 0, 1, x, 8, 8);  // reads x[0, 8) of pid 0
            }
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("get by pid 0 at DebugChecksTest.getDestinationReadByAnotherRequestOfTheSuperstep("
                + FILE), e.getMessage());
        assertTrue(e.getMessage().contains("writes memory of pid 0 that put by pid 0 at"), e.getMessage());
    }

    @Test
    void putSourceWrittenByTheProgramBeforeTheSync() {
        AtomicInteger line = new AtomicInteger();
        LpfProgrammingError e = provoke(2, Check.READ_WRITE_CONFLICT, line, ctx -> {
            setUp(ctx, 2, 1);
            MemorySegment src = bytes(8);
            Memslot l = ctx.registerLocal(src);
            Memslot x = ctx.registerGlobal(bytes(8));
            ctx.sync();
            line.set(line()); ctx.put(l, 0, 1 - ctx.pid(), x, 0, 8);
            src.set(ValueLayout.JAVA_BYTE, 3, (byte) 7);
            ctx.sync();
        });
        assertTrue(e.getMessage().contains("the program wrote the source area of this put before the sync"), e.getMessage());
    }

    @Test
    void deregisterWithPendingRequest() {
        AtomicInteger line = new AtomicInteger();
        LpfProgrammingError e = provoke(2, Check.DEREGISTER_PENDING, line, ctx -> {
            setUp(ctx, 2, 1);
            Memslot l = ctx.registerLocal(bytes(8));
            Memslot x = ctx.registerGlobal(bytes(8));
            ctx.sync();
            ctx.put(l, 0, 1 - ctx.pid(), x, 0, 8);
            line.set(line()); ctx.deregister(l);
        });
        assertTrue(e.getMessage().contains("names the slot and is pending until the next sync"), e.getMessage());
    }

    @Test
    void slotsLeftRegisteredAtReturn() {
        AtomicInteger line = new AtomicInteger();
        LpfProgrammingError e = provoke(3, Check.SLOTS_LEFT_REGISTERED, line, ctx -> {
            setUp(ctx, 2, 0);
            Memslot keep = ctx.registerLocal(bytes(8));
            if (ctx.pid() == 1) {
                line.set(line()); ctx.registerLocal(bytes(4));
            }
            ctx.deregister(keep);
        });
        assertTrue(e.getMessage().contains("1 slot(s) still registered: [local#"), e.getMessage());
        assertTrue(e.getMessage().contains("on pid 1 of 3"), e.getMessage());
    }

    @Test
    void deregisteredSlotUsed() {
        AtomicInteger line = new AtomicInteger();
        LpfProgrammingError e = provoke(1, Check.BAD_SLOT, line, ctx -> {
            setUp(ctx, 2, 1);
            Memslot l = ctx.registerLocal(bytes(8));
            Memslot x = ctx.registerGlobal(bytes(8));
            ctx.sync();
            ctx.deregister(l);
            line.set(line()); ctx.put(l, 0, 0, x, 0, 8);
        });
        assertTrue(e.getMessage().contains("srcSlot local#0(8 B) is deregistered"), e.getMessage());
    }

    @Test
    void otherProcessesGetTheSameReportFromTheirSync() {
        AtomicInteger others = new AtomicInteger();
        FatalException e = assertThrows(FatalException.class, () -> Debug.wrap(ThreadsEngine.root()).exec(4, ctx -> {
            try {
                // pid 3 may fail while another is still leaving setUp's sync, which then fails too
                setUp(ctx, 1, 0);
                if (ctx.pid() == 3) {
                    ctx.registerLocal(bytes(1));
                    ctx.registerLocal(bytes(1));
                }
                ctx.sync();
            } catch (LpfProgrammingError r) {
                if (ctx.pid() == 3) throw r;
                if (r.check() == Check.REGISTER_CAPACITY) others.incrementAndGet();
                throw r;
            }
        }));
        assertEquals(Check.REGISTER_CAPACITY, assertInstanceOf(LpfProgrammingError.class, e).check());
        assertEquals(3, others.get(), "pids 0, 1 and 2 see the report of pid 3 from their sync");
    }

    /** A correct program runs unchanged under the debug layer (no false reports), also nested and rehooked. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void correctProgramPasses(int p) {
        long[] out = new long[1];
        Debug.wrap(ThreadsEngine.root()).exec(p, ctx -> {
            int s = ctx.pid(), n = ctx.nprocs();
            setUp(ctx, 2, 2L * n);
            MemorySegment x = MemorySegment.ofArray(new long[n]);
            MemorySegment y = MemorySegment.ofArray(new long[n]);
            x.setAtIndex(ValueLayout.JAVA_LONG, s, s + 1);
            Memslot xs = ctx.registerGlobal(x);
            Memslot ys = ctx.registerGlobal(y);
            ctx.sync();
            for (int q = 0; q < n; q++) {
                if (q != s) ctx.put(xs, 8L * s, q, xs, 8L * s, 8);   // allgather into x
                ctx.get(q, xs, 8L * q, ys, 8L * q, 8);                // reads x[q] of q, which nobody writes
            }
            ctx.sync();
            long sum = 0;
            for (int q = 0; q < n; q++) sum += x.getAtIndex(ValueLayout.JAVA_LONG, q) + y.getAtIndex(ValueLayout.JAVA_LONG, q);
            ctx.rehook(inner -> {
                inner.resizeMemoryRegister(1);
                inner.sync();
                Memslot t = inner.registerLocal(MemorySegment.ofArray(new byte[4]));
                inner.deregister(t);
            }, org.lpf4j.Args.NONE);
            ctx.deregister(xs);
            ctx.deregister(ys);
            if (s == 0) out[0] = sum;
        });
        assertEquals((long) p * (p + 1), out[0]);
    }

    /**
     * A section of {@code hook} is checked across processes too (its members share no object):
     * every member gets the report of a put past what another member registered.
     */
    @Test
    void hookedMembersCheckEachOther() throws Exception {
        ThreadsEngine.Group group = ThreadsEngine.group(3);
        AtomicInteger line = new AtomicInteger();
        java.util.List<Throwable> got = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        Thread[] members = new Thread[3];
        for (int k = 0; k < 3; k++) {
            org.lpf4j.Init init = Debug.wrap(group.member(k));
            members[k] = Thread.ofPlatform().start(() -> {
                try {
                    init.hook(ctx -> {
                        setUp(ctx, 1, 1);
                        Memslot x = ctx.registerGlobal(bytes(ctx.pid() == 2 ? 8 : 16));
                        ctx.sync();
                        line.set(line()); if (ctx.pid() == 0) ctx.put(x, 0, 2, x, 8, 8);
                        ctx.sync();
                    }, org.lpf4j.Args.NONE);
                } catch (Throwable t) {
                    got.add(t);
                }
            });
        }
        for (Thread t : members) t.join(20_000);
        assertEquals(3, got.size(), got::toString);
        for (Throwable t : got) {
            LpfProgrammingError e = assertInstanceOf(LpfProgrammingError.class, t);
            assertEquals(Check.OUT_OF_BOUNDS, e.check(), e.getMessage());
            assertTrue(e.getMessage().contains(FILE + line.get() + ") on pid 0 of 3"), e.getMessage());
        }
    }

    /**
     * An engine whose nested exec runs on another root made by {@code Lpf.root} (the MPI and
     * hybrid engines: the threads engine's root), which {@code lpf.debug} wraps as well: the nested
     * processes get one layer, as they do where an engine nests in itself, not a layer per root.
     */
    @Test
    void aNestedExecThroughAnotherCheckedRootIsCheckedOnce() {
        Context nestingThroughAnotherRoot = new org.lpf4j.spi.kit.ForwardingContext(ThreadsEngine.root()) {
            @Override
            public void exec(int p, Spmd spmd, org.lpf4j.Args args) {
                Debug.wrap(ThreadsEngine.root()).exec(p, spmd, args);
            }
        };
        String[] seen = new String[2];
        Debug.wrap(nestingThroughAnotherRoot).exec(2, ctx -> {
            seen[ctx.pid()] = ctx.toString();
            setUp(ctx, 0, 0);
        });
        for (String s : seen) assertTrue(s.matches("Debug\\[ThreadsContext\\[.*\\]\\]"), s);
    }

    @Test
    void debugOffMeansTheEnginesOwnContext() {
        // Set here both ways: the module's suite also runs with lpf.debug=true as a system property.
        try {
            Parameters.set("lpf.debug", "false");
            assertFalse(Lpf.root() instanceof DebugContext);
            Parameters.set("lpf.debug", "true");
            Context root = Lpf.root();
            assertInstanceOf(DebugContext.class, root);
            assertSame(root, Debug.wrap(root));
        } finally {
            Parameters.clear("lpf.debug");
        }
    }

    /**
     * lpf.capacity=grow under the debug layer: nothing reserved, yet every registration and request
     * goes through; each process reports its high-water marks at the end of the section, and a
     * section that reserves those values runs without the mode.
     */
    @Test
    void growingCapacitiesAreReportedAsHighWaterMarksThatSufficeAsFixedOnes() {
        Spmd program = ctx -> {
            int p = ctx.nprocs();
            Memslot dst = ctx.registerGlobal(bytes(16L * p));
            Memslot a = ctx.registerLocal(bytes(8)), b = ctx.registerLocal(bytes(8));
            ctx.sync();
            for (int q = 0; q < p; q++) {
                ctx.put(a, 0, q, dst, 16L * ctx.pid(), 8);
                ctx.put(b, 0, q, dst, 16L * ctx.pid() + 8, 8);
            }
            ctx.sync();
            ctx.deregister(b);
            ctx.deregister(a);
            ctx.deregister(dst);
        };
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        try {
            Parameters.set("lpf.capacity", "grow");
            System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
            Debug.wrap(ThreadsEngine.root()).exec(2, program);
        } finally {
            System.setErr(err);
            Parameters.clear("lpf.capacity");
        }
        String text = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        for (int pid = 0; pid < 2; pid++) {
            assertTrue(text.contains("lpf debug: pid " + pid + " of 2: high-water marks of the section (lpf.capacity=grow): 3"
                    + " register slot(s) at once, 4 queue entries in one superstep"), text);
        }
        assertTrue(text.contains("Capacity.of(3, 4)"), text);
        // The reported values, reserved, suffice with fixed capacities (the debug layer checks them).
        Debug.wrap(ThreadsEngine.root()).exec(2, ctx -> {
            org.lpf4j.Capacity.of(3, 4).reserve(ctx);
            program.run(ctx);
        });
    }
}
