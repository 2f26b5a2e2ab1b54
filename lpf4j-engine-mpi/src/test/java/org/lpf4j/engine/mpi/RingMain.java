package org.lpf4j.engine.mpi;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Run under mpirun by {@link EngineTest}: a ring of puts and gets of small and large payloads, at every p. */
public final class RingMain {
    private RingMain() {}

    static final class Ring implements Spmd {
        private static final long serialVersionUID = 1L;
        private final long size;

        Ring(long size) { this.size = size; }

        @Override
        public void run(Context ctx) {
            int s = ctx.pid(), p = ctx.nprocs();
            ctx.resizeMemoryRegister(4);
            ctx.resizeMessageQueue(2L * p + 2);
            ctx.sync();
            try (Arena a = Arena.ofShared()) {
                MemorySegment mine = a.allocate(size), next = a.allocate(size);
                byte[] heap = new byte[(int) size];
                for (long i = 0; i < size; i++) mine.set(ValueLayout.JAVA_BYTE, i, (byte) (s * 31 + i));
                Memslot m = ctx.registerGlobal(mine), n = ctx.registerGlobal(next), h = ctx.registerGlobal(MemorySegment.ofArray(heap));
                ctx.sync();
                ctx.put(m, 0, (s + 1) % p, n, 0, size);       // native to native
                ctx.get((s + 1) % p, m, 0, h, 0, size);        // native to heap
                ctx.sync();
                int prev = (s + p - 1) % p, succ = (s + 1) % p;
                for (long i = 0; i < size; i++) {
                    if (next.get(ValueLayout.JAVA_BYTE, i) != (byte) (prev * 31 + i)) {
                        throw new AssertionError("pid " + s + ": put byte " + i + " from " + prev);
                    }
                    if (heap[(int) i] != (byte) (succ * 31 + i)) throw new AssertionError("pid " + s + ": get byte " + i + " from " + succ);
                }
                ctx.deregister(m);
                ctx.deregister(n);
                ctx.deregister(h);
            }
        }
    }

    public static void main(String[] args) {
        var root = Lpf.root();
        int P = root.probe().p();
        for (int p = 1; p <= P; p++) {
            for (long size : new long[] {0, 8, 1000, 100_000, 1 << 20}) root.exec(p, new Ring(size));
            System.out.println("RING OK p=" + p);
        }
        try {
            root.exec(P, ctx -> {
                if (ctx.pid() == P - 1) throw new IllegalStateException("boom at " + ctx.pid());
                ctx.sync();
            });
            System.out.println("NO FAILURE SEEN");
        } catch (org.lpf4j.FatalException e) {
            System.out.println("FATAL OK " + e.getMessage());
        }
        System.out.println("ALL DONE size=" + P);
    }
}
