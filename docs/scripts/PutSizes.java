// A put of each size to the next pid + sync, GB/s per process (median of 7), to find where the net
// engine's single-copy path (lpf.engine.net.shmSingleCopy) beats its rings (docs/performance-log.md).
// Compile against lpf4j, then run it through lpf run, once per path, taking turns:
//   javac -cp "lpf4j-tools/target/lib/*:lpf4j-tools/target/classes" -d DIR docs/scripts/PutSizes.java
//   bin/lpf run --engine net -p 2 --param lpf.engine.net.shmSingleCopyFrom=1 -cp DIR PutSizes 2
//   bin/lpf run --engine net -p 2 --param lpf.engine.net.shmSingleCopy=false -cp DIR PutSizes 2
// -> lines "put_<bytes>_GBps p value"
import org.lpf4j.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

public class PutSizes {
    public static void main(String[] args) throws Exception {
        int p = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        Lpf.root().exec(p, (Spmd & java.io.Serializable) ctx -> {
            int s = ctx.pid(), n = ctx.nprocs();
            long max = 1 << 20;
            Arena arena = Arena.ofShared();
            MemorySegment src = arena.allocate(max, 64), dst = arena.allocate(max, 64);
            src.fill((byte) s);
            ctx.resizeMemoryRegister(2); ctx.resizeMessageQueue(2); ctx.sync();
            Memslot ss = ctx.registerLocal(src), ds = ctx.registerGlobal(dst);
            ctx.sync();
            double[] t = new double[7];
            for (long size = 16 << 10; size <= max; size *= 2) {
                int k = (int) Math.max(100, (400L << 20) / size / 4);
                for (int r = 0; r < t.length; r++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < k; i++) { ctx.put(ss, 0, (s + 1) % n, ds, 0, size); ctx.sync(); }
                    t[r] = (System.nanoTime() - t0) / 1e9 / k;
                }
                Arrays.sort(t);
                if (s == 0) System.out.printf("put_%d_GBps %d %.3f%n", size, n, size / t[t.length / 2] / 1e9);
            }
            ctx.deregister(ss); ctx.deregister(ds);
        });
    }
}
