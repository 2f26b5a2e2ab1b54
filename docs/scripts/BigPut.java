// Bandwidth of a 1 MiB put to the right neighbour (every process sends one and receives one per
// superstep), median of 5 measurements of K supersteps (default 20) after a warm-up of as many: the
// 1 MiB put of issue 41's emulated-hosts target at any p. Usage: BigPut P [K]. Prints
// "put1MiB_GBps p value" from pid 0.
import org.lpf4j.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

public class BigPut {
    public static void main(String[] args) {
        int p = Integer.parseInt(args[0]);
        int k = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Lpf.root().exec(p, (Spmd & java.io.Serializable) ctx -> {
            int s = ctx.pid(), n = ctx.nprocs();
            long size = 1 << 20;
            MemorySegment src = Arena.ofAuto().allocate(size, 64), dst = Arena.ofAuto().allocate(size, 64);
            ctx.resizeMemoryRegister(2); ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot ss = ctx.registerLocal(src), ds = ctx.registerGlobal(dst);
            ctx.sync();
            double[] t = new double[5];
            for (int warm = 0; warm < 2; warm++) {
                for (int r = 0; r < t.length; r++) {
                    long a = System.nanoTime();
                    for (int i = 0; i < k; i++) { ctx.put(ss, 0, (s + 1) % n, ds, 0, size); ctx.sync(); }
                    t[r] = (System.nanoTime() - a) / (double) k;
                }
            }
            Arrays.sort(t);
            if (s == 0) System.out.printf("put1MiB_GBps %d %.3f%n", n, size / t[t.length / 2]);
        });
    }
}
