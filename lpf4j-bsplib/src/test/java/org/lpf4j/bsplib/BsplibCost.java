package org.lpf4j.bsplib;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;

/**
 * What a BSPlib superstep costs beside the same communication through the core API, in one run
 * (same JVM, same machine state): an empty superstep, an 8-byte put to the right neighbour, a
 * 64 KiB put to the right neighbour ({@link Bsplib#put} copies at the call, {@link Bsplib#hpput}
 * from a registered area does not), each followed by a sync, on the threads engine. The core
 * program reserves its capacities and registers its areas once, as a hand-written program does.
 * The core and BSPlib blocks alternate in 16 repetitions of short blocks; the first is a warm-up.
 * Printed per row: the median time of each and the median of the per-repetition ratio (a block
 * of BSPlib beside the core block just before it), which a loaded machine disturbs least. Process 0 times; results are microseconds per superstep.
 *
 * <p>Run (after {@code mvn -pl lpf4j-bsplib -am test-compile}):
 * {@code java -cp lpf4j-bsplib/target/test-classes:lpf4j-bsplib/target/classes:lpf4j-core/target/classes:lpf4j-engine-threads/target/classes
 * org.lpf4j.bsplib.BsplibCost [p ...]} (default p = 2 4).
 */
public final class BsplibCost {
    private BsplibCost() {}

    static final String[] ROWS = {"empty sync", "8 B ring put", "64 KiB ring put", "64 KiB ring hpput"};
    static final long[] SIZES = {0, 8, 65536, 65536};
    static final int REPS = 16;

    static int iterations(long size) { return size > 1024 ? 1_000 : 5_000; }

    public static void main(String[] args) {
        int[] ps = args.length == 0 ? new int[] {2, 4} : java.util.Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        System.out.printf("%-20s %3s %12s %12s %16s%n", "workload", "p", "core us", "bsplib us", "median ratio");
        for (int p : ps) {
            MemorySegment out = Arena.ofAuto().allocate(8L * 2 * ROWS.length * REPS);
            Lpf.root().exec(p, BsplibCost::measure, Args.of(MemorySegment.NULL, out));
            for (int r = 0; r < ROWS.length; r++) {
                double[] core = new double[REPS - 1], lib = new double[REPS - 1], ratio = new double[REPS - 1];
                for (int k = 1; k < REPS; k++) {
                    core[k - 1] = out.getAtIndex(JAVA_DOUBLE, (2L * r) * REPS + k);
                    lib[k - 1] = out.getAtIndex(JAVA_DOUBLE, (2L * r + 1) * REPS + k);
                    ratio[k - 1] = lib[k - 1] / core[k - 1];
                }
                System.out.printf("%-20s %3d %12.2f %12.2f %16.2f%n", ROWS[r], p, median(core), median(lib), median(ratio));
            }
        }
    }

    static double median(double[] v) {
        double[] c = v.clone();
        java.util.Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }

    static void measure(Context ctx) {
        int p = ctx.nprocs(), s = ctx.pid(), right = (s + 1) % p;
        double[] times = new double[2 * ROWS.length * REPS]; // [row kind][rep]
        MemorySegment src = Arena.ofShared().allocate(65536, 8), dst = Arena.ofShared().allocate(65536, 8);
        for (int rep = 0; rep < REPS; rep++) {
            // ---- core API
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot ss = ctx.registerLocal(src), ds = ctx.registerGlobal(dst);
            ctx.sync();
            for (int r = 0; r < ROWS.length; r++) {
                long size = SIZES[r];
                int n = iterations(size);
                ctx.sync();
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    if (size > 0) ctx.put(ss, 0, right, ds, 0, size);
                    ctx.sync();
                }
                double us = (System.nanoTime() - t0) * 1e-3 / n;
                times[(2 * r) * REPS + rep] = us;
            }
            ctx.deregister(ss);
            ctx.deregister(ds);
            ctx.sync();
            // ---- BSPlib on the same context
            try (Bsplib bsp = Bsplib.begin(ctx)) {
                bsp.pushReg(dst);
                bsp.pushReg(src);
                bsp.sync();
                for (int r = 0; r < ROWS.length; r++) {
                    long size = SIZES[r];
                    boolean hp = ROWS[r].contains("hpput");
                    int n = iterations(size);
                    bsp.sync();
                    long t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        if (size > 0) {
                            if (hp) bsp.hpput(right, src, dst, 0, size);
                            else bsp.put(right, src, dst, 0, size);
                        }
                        bsp.sync();
                    }
                    double us = (System.nanoTime() - t0) * 1e-3 / n;
                    times[(2 * r + 1) * REPS + rep] = us;
                }
            }
            ctx.sync();
        }
        if (s == 0) for (int i = 0; i < times.length; i++) ctx.args().output().setAtIndex(JAVA_DOUBLE, i, times[i]);
    }
}
