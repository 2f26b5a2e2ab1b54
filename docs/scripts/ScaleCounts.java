// What a process sends per superstep at p processes, as the engine's WireCounts count it (exact, the
// same on any machine): an empty sync, a ring superstep (8 bytes to the right neighbour) and a dense
// one (8 bytes to every other process). Prints, from pid 0, the largest count over the processes:
// "counts workload=W p=P messages=M bytes=B connections=C" (messages: data + meta-data; bytes:
// payload + headers + meta-data; connections: open after the superstep). Run by docs/scripts/scale-plots.sh.
import org.lpf4j.*;
import org.lpf4j.spi.kit.WireCounts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

public class ScaleCounts {
    static final String[] WORKLOADS = {"empty", "ring", "dense"};
    static final int STEPS = 4;

    public static void main(String[] args) {
        int p = Integer.parseInt(args[0]);
        Lpf.root().exec(p, (Spmd & java.io.Serializable) ctx -> {
            int s = ctx.pid(), n = ctx.nprocs();
            Arena arena = Arena.ofAuto();
            MemorySegment src = arena.allocate(8), dst = arena.allocate(8L * n), mine = arena.allocate(8L * 9), all = arena.allocate(8L * 9 * n);
            ctx.resizeMemoryRegister(4);
            ctx.resizeMessageQueue(2L * n + 2);
            ctx.sync();
            Memslot ss = ctx.registerLocal(src), ds = ctx.registerGlobal(dst), ms = ctx.registerLocal(mine), as = ctx.registerGlobal(all);
            ctx.sync();
            WireCounts wire = WireCounts.of(ctx);
            long[] before = new long[WireCounts.COUNTERS], after = new long[WireCounts.COUNTERS];
            for (int w = 0; w < WORKLOADS.length; w++) {
                for (int round = 0; round < 2; round++) { // the first round makes the connections the workload needs
                    wire.read(before);
                    for (int i = 0; i < STEPS; i++) {
                        if (w == 1) ctx.put(ss, 0, (s + 1) % n, ds, 8L * s, 8);
                        if (w == 2) for (int d = 0; d < n; d++) if (d != s) ctx.put(ss, 0, d, ds, 8L * s, 8);
                        ctx.sync();
                    }
                    wire.read(after);
                }
                long messages = after[WireCounts.DATA_MESSAGES] - before[WireCounts.DATA_MESSAGES]
                        + after[WireCounts.META_MESSAGES] - before[WireCounts.META_MESSAGES];
                long bytes = after[WireCounts.PAYLOAD_BYTES] - before[WireCounts.PAYLOAD_BYTES] + after[WireCounts.HEADER_BYTES]
                        - before[WireCounts.HEADER_BYTES] + after[WireCounts.META_BYTES] - before[WireCounts.META_BYTES];
                mine.set(ValueLayout.JAVA_LONG, 24L * w, messages / STEPS);
                mine.set(ValueLayout.JAVA_LONG, 24L * w + 8, bytes / STEPS);
                mine.set(ValueLayout.JAVA_LONG, 24L * w + 16, wire.connections());
            }
            ctx.put(ms, 0, 0, as, 72L * s, 72);
            ctx.sync();
            if (s == 0) {
                for (int w = 0; w < WORKLOADS.length; w++) {
                    long[] max = new long[3];
                    for (int q = 0; q < n; q++) {
                        for (int k = 0; k < 3; k++) max[k] = Math.max(max[k], all.get(ValueLayout.JAVA_LONG, 72L * q + 24L * w + 8L * k));
                    }
                    System.out.printf("counts workload=%s p=%d messages=%d bytes=%d connections=%d%n", WORKLOADS[w], n, max[0], max[1], max[2]);
                }
            }
            ctx.deregister(ss);
            ctx.deregister(ds);
            ctx.deregister(ms);
            ctx.deregister(as);
        });
    }
}
