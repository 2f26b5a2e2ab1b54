package org.lpf4j.engine.mpi;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Run under mpirun by {@link EngineTest}: write conflicts on the paths a large put can take
 * (received in place, staged, heap destination), mixed with a get and an in-place send of the
 * area being written. Every overlapping write must land whole (some serialisation), never
 * byte-mixed; a get or a put from the area reads it whole.
 */
public final class ConflictMain {
    private ConflictMain() {}

    static final long MIB = 1 << 20;

    static final class Conflicts implements Spmd {
        private static final long serialVersionUID = 1L;

        @Override
        public void run(Context ctx) {
            int s = ctx.pid(), p = ctx.nprocs();
            ctx.resizeMemoryRegister(5);
            ctx.resizeMessageQueue(4L * p);
            ctx.sync();
            try (Arena a = Arena.ofShared()) {
                MemorySegment src = a.allocate(MIB), area = a.allocate(2 * MIB), copy = a.allocate(MIB), got = a.allocate(MIB);
                byte[] heap = new byte[(int) MIB];
                src.fill((byte) (s + 1));
                area.fill((byte) 0x55);
                Memslot srcSlot = ctx.registerGlobal(src), areaSlot = ctx.registerGlobal(area), copySlot = ctx.registerGlobal(copy);
                Memslot gotSlot = ctx.registerLocal(got), heapSlot = ctx.registerGlobal(MemorySegment.ofArray(heap));
                ctx.sync();
                for (int round = 0; round < 3; round++) {
                    // Everyone (pid 0 too) writes 1 MiB over the same bytes of pid 0's area, at an
                    // offset that varies by round, and over pid 0's heap array.
                    long offset = round * MIB / 2;
                    ctx.put(srcSlot, 0, 0, areaSlot, offset, MIB);
                    ctx.put(srcSlot, 0, 0, heapSlot, 0, MIB);
                    // pid 0 sends the area's first MiB to pid 1 while it is being written; pid 1 gets it too.
                    if (s == 0 && p > 1) ctx.put(areaSlot, 0, 1, copySlot, 0, MIB);
                    if (s == 1) ctx.get(0, areaSlot, 0, gotSlot, 0, MIB);
                    ctx.sync();
                    if (s == 0) {
                        uniform(area.asSlice(offset, MIB), "pid 0 area after round " + round);
                        uniform(MemorySegment.ofArray(heap), "pid 0 heap after round " + round);
                    }
                    if (s == 1) {
                        uniform(copy, "pid 1 copy of the area being written, round " + round);
                        uniform(got, "pid 1 get of the area being written, round " + round);
                    }
                    ctx.sync();
                }
                ctx.deregister(srcSlot);
                ctx.deregister(areaSlot);
                ctx.deregister(copySlot);
                ctx.deregister(gotSlot);
                ctx.deregister(heapSlot);
            }
        }

        /** A region written by several whole messages: one value throughout. */
        private static void uniform(MemorySegment seg, String what) {
            byte first = seg.get(ValueLayout.JAVA_BYTE, 0);
            for (long i = 0; i < seg.byteSize(); i++) {
                byte b = seg.get(ValueLayout.JAVA_BYTE, i);
                if (b != first) throw new AssertionError(what + ": byte " + i + " is " + b + ", byte 0 is " + first + " (mixed writes)");
            }
        }
    }

    public static void main(String[] args) {
        var root = Lpf.root();
        for (int p = 2; p <= root.probe().p(); p++) root.exec(p, new Conflicts());
        System.out.println("CONFLICTS OK");
    }
}
