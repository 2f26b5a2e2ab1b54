// Connects every pair (one dense superstep), then reports when pid 0 starts to leave the section.
import org.lpf4j.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

public class AllPairs {
    public static void main(String[] args) throws Exception {
        int p = Integer.parseInt(args[0]);
        Lpf.root().exec(p, (Spmd & java.io.Serializable) ctx -> {
            int s = ctx.pid(), n = ctx.nprocs();
            Arena arena = Arena.ofShared();
            MemorySegment src = arena.allocate(8, 64), dst = arena.allocate(8L * n, 64);
            ctx.resizeMemoryRegister(2); ctx.resizeMessageQueue(2L * n + 2); ctx.sync();
            Memslot ss = ctx.registerLocal(src), ds = ctx.registerGlobal(dst);
            ctx.sync();
            long a = System.nanoTime();
            for (int d = 0; d < n; d++) if (d != s) ctx.put(ss, 0, d, ds, 8L * s, 8);
            ctx.sync();
            ctx.sync();
            if (s == 0) System.out.printf("connected_s %.1f%nleaving_at_ms %d%n", (System.nanoTime() - a) / 1e9, System.currentTimeMillis());
            ctx.deregister(ss); ctx.deregister(ds);
        });
    }
}
