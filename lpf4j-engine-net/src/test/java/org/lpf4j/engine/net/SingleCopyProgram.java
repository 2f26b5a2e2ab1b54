package org.lpf4j.engine.net;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The supersteps of {@link SingleCopyTest}, and its program for a net job of 3 JVMs: every
 * process puts to the next one from native memory at odd offsets and lengths (two puts into one
 * destination, one after the other) and from heap memory, and gets from the one after it, all
 * large enough for the single-copy path; then checks every byte. As a program each pid prints
 * {@code CHECKED pid <s> bad <bytes wrong> reads <payloads this JVM read in one copy>}.
 */
public final class SingleCopyProgram {
    private SingleCopyProgram() {}

    static final int N = 300_001;

    private static byte value(int s, long i, int heap) { return (byte) (i * 7 + s * 13 + (i >>> 9) + heap); }

    /**
     * Runs {@code rounds} supersteps of puts and a get; {@code beforeRound} is told each round's number first.
     *
     * @return the bytes that arrived wrong
     */
    static long exchange(Context ctx, int rounds, java.util.function.IntConsumer beforeRound) {
        int s = ctx.pid(), n = ctx.nprocs();
        long bad = 0;
        MemorySegment src = Arena.ofAuto().allocate(N), heap = MemorySegment.ofArray(new byte[N]);
        MemorySegment dst = Arena.ofAuto().allocate(4L * N + 64);
        for (long i = 0; i < N; i++) {
            src.set(ValueLayout.JAVA_BYTE, i, value(s, i, 0));
            heap.set(ValueLayout.JAVA_BYTE, i, value(s, i, 1));
        }
        ctx.resizeMemoryRegister(3);
        ctx.resizeMessageQueue(4L * n);
        ctx.sync();
        Memslot ss = ctx.registerGlobal(src), hs = ctx.registerLocal(heap), ds = ctx.registerGlobal(dst);
        ctx.sync();
        int to = (s + 1) % n, from = (s - 1 + n) % n, getFrom = (s + 2) % n;
        for (int round = 0; round < rounds; round++) {
            beforeRound.accept(round);
            dst.fill((byte) 0);
            ctx.sync();
            ctx.put(ss, 3, to, ds, 5, 200_003);
            ctx.put(ss, 1000, to, ds, 5 + 200_003 + 1, 70_001); // the same destination, after the first
            ctx.put(hs, 7, to, ds, 2L * N + 1, 100_000); // a heap source: staged in native memory first
            ctx.get(getFrom, ss, 11, ds, 3L * N + 3, 90_000);
            ctx.sync();
            for (long i = 0; i < 200_003; i++) if (dst.get(ValueLayout.JAVA_BYTE, 5 + i) != value(from, 3 + i, 0)) bad++;
            if (dst.get(ValueLayout.JAVA_BYTE, 5 + 200_003) != 0) bad++;
            for (long i = 0; i < 70_001; i++) if (dst.get(ValueLayout.JAVA_BYTE, 5 + 200_004 + i) != value(from, 1000 + i, 0)) bad++;
            for (long i = 0; i < 100_000; i++) if (dst.get(ValueLayout.JAVA_BYTE, 2L * N + 1 + i) != value(from, 7 + i, 1)) bad++;
            for (long i = 0; i < 90_000; i++) if (dst.get(ValueLayout.JAVA_BYTE, 3L * N + 3 + i) != value(getFrom, 11 + i, 0)) bad++;
            if (dst.get(ValueLayout.JAVA_BYTE, 3L * N + 2) != 0 || dst.get(ValueLayout.JAVA_BYTE, 3L * N + 3 + 90_000) != 0) bad++;
        }
        ctx.deregister(ss);
        ctx.deregister(hs);
        ctx.deregister(ds);
        return bad;
    }

    public static void main(String[] args) {
        Lpf.root().exec(3, ctx -> {
            long bad = exchange(ctx, 3, round -> {});
            System.out.println("CHECKED pid " + ctx.pid() + " bad " + bad + " reads " + SingleCopy.READS_IN_THIS_JVM.sum());
        });
    }
}
