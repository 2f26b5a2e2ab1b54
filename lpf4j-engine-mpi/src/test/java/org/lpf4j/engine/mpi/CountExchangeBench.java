package org.lpf4j.engine.mpi;

import org.lpf4j.*;
import java.lang.foreign.*;
import java.util.Arrays;

/**
 * How a sync's cost grows with p (docs/performance.md, "Sparse and dense count exchanges"): the
 * engine's empty sync, 8-byte ring put + sync and 8-byte total exchange + sync, beside raw
 * {@code MPI_Allreduce} of 8 bytes and {@code MPI_Alltoall} of 8 bytes per pair in the same
 * processes. Run under a launcher, e.g. from the project root after {@code mvn -pl
 * lpf4j-engine-mpi -am test-compile}: {@code mpirun -n P --oversubscribe --bind-to none java
 * --enable-native-access=ALL-UNNAMED -Dlpf.engine=mpi -Dlpf.engine.mpi.countExchange=sparse -cp
 * "lpf4j-tools/target/lib/*:lpf4j-engine-mpi/target/test-classes" org.lpf4j.engine.mpi.CountExchangeBench P}.
 * Prints one line at pid 0 (medians of 7 batches, µs).
 */
public final class CountExchangeBench {
    private CountExchangeBench() {}

    static double median(double[] t) { double[] c = t.clone(); Arrays.sort(c); return c[c.length / 2]; }
    public static void main(String[] a) {
        int p = Integer.parseInt(a[0]);
        Lpf.root().exec(p, (Spmd & java.io.Serializable) ctx -> {
            int s = ctx.pid(), n = ctx.nprocs();
            Arena arena = Arena.ofShared();
            MemorySegment src = arena.allocate(8L * n, 64), dst = arena.allocate(8L * n, 64);
            ctx.resizeMemoryRegister(2); ctx.resizeMessageQueue(2L * n + 2); ctx.sync();
            Memslot ss = ctx.registerLocal(src), ds = ctx.registerGlobal(dst);
            ctx.sync();
            Mpi mpi = Mpi.load(MpiParameters.LIBRARY.get());
            long world = MpiEngine.commWorld();
            MemorySegment rb = arena.allocate(16L * n, 64);
            final int REPS = 7, K = n >= 16 ? 300 : 2000;
            double[][] t = new double[5][REPS];
            for (int round = 0; round < 2; round++) {
                for (int r = 0; r < REPS; r++) {
                    long t0 = System.nanoTime(); for (int i = 0; i < K; i++) ctx.sync(); t[0][r] = (System.nanoTime() - t0) / 1e3 / K;
                    t0 = System.nanoTime(); for (int i = 0; i < K; i++) { ctx.put(ss, 0, (s + 1) % n, ds, 8L * s, 8); ctx.sync(); } t[1][r] = (System.nanoTime() - t0) / 1e3 / K;
                    t0 = System.nanoTime(); for (int i = 0; i < K; i++) { for (int d = 0; d < n; d++) if (d != s) ctx.put(ss, 8L * d, d, ds, 8L * s, 8); ctx.sync(); } t[2][r] = (System.nanoTime() - t0) / 1e3 / K;
                    t0 = System.nanoTime(); for (int i = 0; i < K; i++) mpi.allreduceLongs(rb.address(), rb.address() + 8, 1, mpi.opBor(), world); t[3][r] = (System.nanoTime() - t0) / 1e3 / K;
                    t0 = System.nanoTime(); for (int i = 0; i < K; i++) mpi.alltoallBytes(rb.address(), rb.address() + 8L * n, 8, world); t[4][r] = (System.nanoTime() - t0) / 1e3 / K;
                }
            }
            if (s == 0) System.out.printf("p=%d empty_sync %.2f ring_put8 %.2f total_exchange8 %.2f raw_allreduce8 %.2f raw_alltoall8 %.2f%n",
                    n, median(t[0]), median(t[1]), median(t[2]), median(t[3]), median(t[4]));
            ctx.deregister(ss); ctx.deregister(ds);
        });
    }
}
