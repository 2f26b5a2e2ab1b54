package org.lpf4j.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** exec (arguments, process count, nesting), rehook, and the root context. */
@Timeout(60)
class SectionTest {

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void execGivesInputAndOutputToPidZeroOnlyAndSymbolsToAll(String engine, int p) {
        MemorySegment input = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG, 1);
        input.set(ValueLayout.JAVA_LONG, 0, 42L);
        MemorySegment output = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG, p);
        Matrix.exec(engine, p, ctx -> {
            Args a = ctx.args();
            assertEquals(List.of("sym", 7), a.symbols(), "symbols at pid " + ctx.pid());
            if (ctx.pid() == 0) {
                assertEquals(8, a.input().byteSize());
                assertEquals(42L, a.input().get(ValueLayout.JAVA_LONG, 0));
            } else {
                assertEquals(0, a.input().byteSize(), "input at pid " + ctx.pid());
                assertEquals(0, a.output().byteSize(), "output at pid " + ctx.pid());
            }
            // Everyone sends pid + 42 to pid 0's output, which reaches the caller. A put takes a
            // queue entry at its target too: pid 0 is the target of p.
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(ctx.nprocs());
            ctx.sync();
            MemorySegment mine = Arena.ofAuto().allocate(8);
            mine.set(ValueLayout.JAVA_LONG, 0, ctx.pid() + 42L);
            Memslot src = ctx.registerLocal(mine);
            Memslot out = ctx.registerGlobal(a.output());
            ctx.sync();
            ctx.put(src, 0, 0, out, 8L * ctx.pid(), 8);
            ctx.sync();
            ctx.deregister(out);
            ctx.deregister(src);
        }, Args.of(input, output, "sym", 7));
        for (int k = 0; k < p; k++) assertEquals(k + 42L, output.getAtIndex(ValueLayout.JAVA_LONG, k), "output[" + k + "]");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.lpf4j.conformance.Matrix#engines")
    void execMaxPGetsFreePAndAnExplicitPAtMostP(String engine) {
        Context root = Lpf.root(engine);
        int freeP = root.probe().freeP();
        AtomicInteger seen = new AtomicInteger();
        root.exec(Lpf.MAX_P, ctx -> seen.set(ctx.nprocs()));
        assertEquals(freeP, seen.get(), "exec(MAX_P) is the machine size");
        root.exec(freeP + 5, ctx -> seen.set(ctx.nprocs()));
        assertTrue(seen.get() >= freeP && seen.get() <= freeP + 5, "exec(freeP + 5) got " + seen.get());
        root.exec(freeP, ctx -> seen.set(ctx.nprocs()));
        assertEquals(freeP, seen.get());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.lpf4j.conformance.Matrix#engines")
    void nestedExecSplitsTheCallersFreeProcessors(String engine) {
        Context root = Lpf.root(engine);
        int machine = root.probe().freeP();
        int outer = 2;
        // Each outer process checks its own inner section; the machine total travels to pid 0
        // by a put (the outer processes may live in different JVMs).
        MemorySegment total = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, 1);
        root.exec(outer, ctx -> {
            int free = ctx.probe().freeP();
            assertTrue(free >= 1);
            AtomicInteger innerSize = new AtomicInteger();
            MemorySegment ones = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, free);
            // Each outer process runs an inner section on all of its processors, asking for more.
            ctx.exec(free + 3, inner -> {
                innerSize.incrementAndGet();
                inner.resizeMemoryRegister(2);
                inner.resizeMessageQueue(inner.nprocs()); // inner pid 0 is the target of every put
                inner.sync();
                MemorySegment one = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, 1);
                one.set(ValueLayout.JAVA_INT, 0, 1);
                Memslot src = inner.registerLocal(one);
                Memslot dst = inner.registerGlobal(inner.pid() == 0 ? inner.args().output()
                        : Arena.ofAuto().allocate(ValueLayout.JAVA_INT, inner.nprocs()));
                inner.sync();
                inner.put(src, 0, 0, dst, 4L * inner.pid(), 4);
                inner.sync();
                inner.deregister(dst);
                inner.deregister(src);
            }, Args.of(MemorySegment.NULL, ones));
            for (int k = 0; k < free; k++) assertEquals(1, ones.getAtIndex(ValueLayout.JAVA_INT, k), "inner pid " + k);
            assertEquals(free, innerSize.get(), "inner processes of outer pid " + ctx.pid());
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(ctx.nprocs());
            ctx.sync();
            MemorySegment frees = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, ctx.nprocs());
            MemorySegment mine = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, 1);
            mine.set(ValueLayout.JAVA_INT, 0, free);
            Memslot all = ctx.registerGlobal(frees), own = ctx.registerLocal(mine);
            ctx.sync();
            ctx.put(own, 0, 0, all, 4L * ctx.pid(), 4);
            ctx.sync();
            if (ctx.pid() == 0) {
                int sum = 0;
                for (int k = 0; k < ctx.nprocs(); k++) sum += frees.getAtIndex(ValueLayout.JAVA_INT, k);
                ctx.args().output().set(ValueLayout.JAVA_INT, 0, sum);
            }
            ctx.deregister(all);
            ctx.deregister(own);
        }, Args.of(MemorySegment.NULL, total));
        assertEquals(machine, total.get(ValueLayout.JAVA_INT, 0), "the outer processes share the machine");
    }

    @ExpectsEngineRefusal
    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void rehookStartsAFreshContextOverTheSameProcesses(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            Memslot outer = ctx.registerGlobal(Arena.ofAuto().allocate(8));
            ctx.sync();
            MemorySegment inOut = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, 1);
            inOut.set(ValueLayout.JAVA_INT, 0, ctx.pid());
            ctx.rehook(inner -> {
                assertEquals(ctx.pid(), inner.pid());
                assertEquals(ctx.nprocs(), inner.nprocs());
                // hook/rehook: every process gets its own args.
                assertEquals(ctx.pid(), inner.args().input().get(ValueLayout.JAVA_INT, 0));
                // Fresh: no capacity, and the outer slot is foreign here.
                try {
                    inner.registerLocal(Arena.ofAuto().allocate(4));
                    throw new AssertionError("a fresh context must have no register capacity");
                } catch (IllegalStateException expected) {
                    // fine
                }
                inner.resizeMemoryRegister(2);
                inner.resizeMessageQueue(1);
                inner.sync();
                MemorySegment x = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, 1);
                x.set(ValueLayout.JAVA_INT, 0, 1000 + inner.pid());
                Memslot xs = inner.registerGlobal(x);
                Memslot out = inner.registerLocal(inner.args().output());
                inner.sync();
                try {
                    inner.put(out, 0, 0, outer, 0, 4);
                    throw new AssertionError("a slot of the outer context must be refused");
                } catch (IllegalArgumentException expected) {
                    // fine
                }
                int next = (inner.pid() + 1) % inner.nprocs();
                inner.get(next, xs, 0, out, 0, 4);
                inner.sync();
                assertEquals(1000 + next, inner.args().output().get(ValueLayout.JAVA_INT, 0), "the child's data path");
                inner.args().output().set(ValueLayout.JAVA_INT, 0, 100 + inner.pid());
                inner.deregister(out);
                inner.deregister(xs);
            }, Args.of(inOut, inOut));
            assertEquals(100 + ctx.pid(), inOut.get(ValueLayout.JAVA_INT, 0));
            // The outer context is intact after the rehook.
            ctx.sync();
            ctx.deregister(outer);
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.lpf4j.conformance.Matrix#engines")
    void theRootIsAOneProcessContextWhereEveryPrimitiveWorks(String engine) {
        Context root = Lpf.root(engine);
        assertEquals(0, root.pid());
        assertEquals(1, root.nprocs());
        root.resizeMemoryRegister(2);
        root.resizeMessageQueue(2);
        root.sync();
        MemorySegment a = Arena.ofAuto().allocate(16);
        MemorySegment b = Arena.ofAuto().allocate(16);
        a.set(ValueLayout.JAVA_LONG, 0, 7L);
        Memslot as = root.registerGlobal(a);
        Memslot bs = root.registerLocal(b);
        root.sync();
        root.put(as, 0, 0, as, 8, 8);
        root.get(0, as, 0, bs, 0, 8);
        root.sync();
        assertEquals(7L, a.get(ValueLayout.JAVA_LONG, 8));
        assertEquals(7L, b.get(ValueLayout.JAVA_LONG, 0));
        root.deregister(bs);
        root.deregister(as);
    }
}
