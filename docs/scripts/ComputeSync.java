// A compute phase between syncs, as in PageRank's iterations: each superstep every process runs
// ~40 µs of arithmetic over an array, puts N doubles to every other process, syncs, then syncs
// once more with nothing queued (a checkpoint point without a store is such a sync). Five
// rounds of K supersteps; pid 0 prints per round the mean time of each phase and the
// percentiles of both syncs (a mean hides the tail a compute phase exposes: a waiter that
// blocked and must be woken). Usage: ComputeSync P K N [heap|native] (the areas as heap arrays,
// the default, or native memory).
import org.lpf4j.*;
import java.lang.foreign.MemorySegment;

public class ComputeSync {
    public static void main(String[] args) {
        int p = Integer.parseInt(args[0]), iters = Integer.parseInt(args[1]), n = Integer.parseInt(args[2]);
        boolean heap = args.length <= 3 || args[3].equals("heap");
        Lpf.root().exec(p, (Spmd & java.io.Serializable) ctx -> {
            int s = ctx.pid();
            double[] work = new double[130_000];
            double[] send = new double[n * p], recv = new double[n * p];
            MemorySegment ss = heap ? MemorySegment.ofArray(send) : java.lang.foreign.Arena.ofAuto().allocate(8L * n * p, 8);
            MemorySegment rs = heap ? MemorySegment.ofArray(recv) : java.lang.foreign.Arena.ofAuto().allocate(8L * n * p, 8);
            ctx.resizeMemoryRegister(2); ctx.resizeMessageQueue(2L * p);
            ctx.sync();
            Memslot sslot = ctx.registerLocal(ss), rslot = ctx.registerGlobal(rs);
            ctx.sync();
            for (int round = 0; round < 5; round++) {
                long tc = 0, ty = 0, te = 0; long[] ys = new long[iters], es = new long[iters];
                for (int it = 0; it < iters; it++) {
                    long a = System.nanoTime();
                    for (int i = 0; i < work.length; i++) work[i] = work[i] * 0.5 + i;
                    long b = System.nanoTime();
                    for (int q = 0; q < p; q++) if (q != s) ctx.put(sslot, 8L * n * q, q, rslot, 8L * n * s, 8L * n);
                    ctx.sync();
                    long c = System.nanoTime();
                    ctx.sync();
                    long d = System.nanoTime();
                    tc += b - a; ty += c - b; te += d - c; ys[it] = c - b; es[it] = d - c;
                }
                if (s == 0) System.out.printf("round %d: compute %.1f us, data sync %.1f us, empty sync %.1f us per iteration%n",
                        round, tc / 1e3 / iters, ty / 1e3 / iters, te / 1e3 / iters);
                java.util.Arrays.sort(ys); java.util.Arrays.sort(es);
                if (s == 0) System.out.printf("   data sync p10 %.1f p50 %.1f p90 %.1f p99 %.1f max %.1f; empty p50 %.1f p90 %.1f p99 %.1f max %.1f%n",
                        ys[iters / 10] / 1e3, ys[iters / 2] / 1e3, ys[iters * 9 / 10] / 1e3, ys[iters * 99 / 100] / 1e3, ys[iters - 1] / 1e3,
                        es[iters / 2] / 1e3, es[iters * 9 / 10] / 1e3, es[iters * 99 / 100] / 1e3, es[iters - 1] / 1e3);
            }
        });
    }
}
