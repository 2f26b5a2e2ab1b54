package org.lpf4j.engine.mpi;

import org.lpf4j.Capability;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.Spmd;

import java.io.Serializable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Run under mpirun by {@link EngineTest}: what is particular to combining puts across JVMs (the
 * data path is the conformance suite's CombiningPutsTest, run under MPI by ConformanceTest). Every
 * process says it supports {@link Capability#COMBINING_PUTS}; a combining put whose operator does
 * not serialize is refused at the put, naming why; one whose operator is
 * a lambda of a serializable interface is shipped and applied. Prints {@code COMBINING OK}.
 */
public final class CombiningMain {
    private CombiningMain() {}

    /** An operator that cannot cross JVMs (not Serializable). */
    static final class Local implements MsgAttr.ElementCombiner {
        @Override
        public void combine(long n, MemorySegment src, long so, MemorySegment dst, long d) {
            throw new AssertionError("never applied");
        }
    }

    /** A serializable interface for lambdas (ElementCombiner itself is not Serializable). */
    interface Shippable extends MsgAttr.ElementCombiner, Serializable {}

    record Check() implements Spmd {
        @Override
        public void run(Context ctx) {
            int s = ctx.pid(), p = ctx.nprocs();
            if (!ctx.supports(Capability.COMBINING_PUTS)) throw new AssertionError("pid " + s + ": COMBINING_PUTS not supported");
            MemorySegment one = Arena.ofAuto().allocate(8), total = Arena.ofAuto().allocate(8);
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(2L * p);
            ctx.sync();
            Memslot oneSlot = ctx.registerLocal(one), totalSlot = ctx.registerGlobal(total);
            ctx.sync();
            one.set(ValueLayout.JAVA_LONG, 0, s + 1);
            try {
                ctx.put(oneSlot, 0, (s + 1) % p, totalSlot, 0, 8, MsgAttr.combining(8, new Local()));
                throw new AssertionError("pid " + s + ": a combining put with a non-serializable operator was accepted");
            } catch (IllegalArgumentException e) {
                if (!e.getMessage().contains("is not Serializable")) throw new AssertionError("pid " + s + ": " + e.getMessage(), e);
            }
            Shippable add = (n, src, so, dst, d) -> dst.set(ValueLayout.JAVA_LONG, d,
                    dst.get(ValueLayout.JAVA_LONG, d) + src.get(ValueLayout.JAVA_LONG, so));
            MsgAttr sum = MsgAttr.combining(8, add);
            for (int d = 0; d < p; d++) ctx.put(oneSlot, 0, d, totalSlot, 0, 8, sum);
            ctx.sync();
            long got = total.get(ValueLayout.JAVA_LONG, 0), expect = (long) p * (p + 1) / 2;
            if (got != expect) throw new AssertionError("pid " + s + ": lambda operator summed " + got + ", expected " + expect);
            ctx.deregister(totalSlot);
            ctx.deregister(oneSlot);
        }
    }

    public static void main(String[] args) {
        Context root = Lpf.root();
        root.exec(root.probe().p(), new Check());
        System.out.println("COMBINING OK");
    }
}
