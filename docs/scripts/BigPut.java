// Bandwidth of a put to the right neighbour (every process sends one and receives one per
// superstep), median of 5 measurements of K supersteps (default 20) after a warm-up of as many: the
// 1 MiB put of issue 41's emulated-hosts target at any p. Usage: BigPut P [K [BYTES [all]]] (BYTES
// default 1 MiB; "all": a total exchange instead, every process puts BYTES to every process, itself
// too, and the bandwidth is BYTES * p per superstep, as in the anchors' LpfBench: "alltoall<BYTES>B_GBps").
// Prints from pid 0 "put1MiB_GBps p value" (put<BYTES>B_GBps for another size),
// and what the measured supersteps cost pid 0's JVM in CPU time, in µs per superstep:
// "put_cpu_us p value" (the whole process) and "put_thread_cpu_us p value" (its thread, which
// moves the bytes on every engine): with more processes than cores, a CPU time near half the wall
// time per superstep means the cores were never idle.
import org.lpf4j.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

public class BigPut {
    public static void main(String[] args) {
        int p = Integer.parseInt(args[0]);
        int k = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        long size = args.length > 2 ? Long.parseLong(args[2]) : 1 << 20;
        boolean all = args.length > 3 && args[3].equals("all");
        Lpf.root().exec(p, (Spmd & java.io.Serializable) ctx -> {
            int s = ctx.pid(), n = ctx.nprocs();
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            var thread = ManagementFactory.getThreadMXBean();
            MemorySegment src = Arena.ofAuto().allocate(size, 64), dst = Arena.ofAuto().allocate(all ? size * n : size, 64);
            ctx.resizeMemoryRegister(2); ctx.resizeMessageQueue(all ? 2L * n : 2);
            ctx.sync();
            Memslot ss = ctx.registerLocal(src), ds = ctx.registerGlobal(dst);
            ctx.sync();
            double[] t = new double[5];
            long cpu = 0, threadCpu = 0;
            for (int warm = 0; warm < 2; warm++) {
                long c0 = os.getProcessCpuTime(), t0 = thread.getCurrentThreadCpuTime();
                for (int r = 0; r < t.length; r++) {
                    long a = System.nanoTime();
                    for (int i = 0; i < k; i++) {
                        if (all) for (int d = 0; d < n; d++) ctx.put(ss, 0, d, ds, size * s, size);
                        else ctx.put(ss, 0, (s + 1) % n, ds, 0, size);
                        ctx.sync();
                    }
                    t[r] = (System.nanoTime() - a) / (double) k;
                }
                cpu = os.getProcessCpuTime() - c0;
                threadCpu = thread.getCurrentThreadCpuTime() - t0;
            }
            Arrays.sort(t);
            if (s == 0) {
                String name = all ? "alltoall" + size + "B_GBps" : size == 1 << 20 ? "put1MiB_GBps" : "put" + size + "B_GBps";
                System.out.printf("%s %d %.3f%n", name, n, (all ? size * n : size) / t[t.length / 2]);
                System.out.printf("put_cpu_us %d %.1f%n", n, cpu / 1e3 / (k * t.length));
                System.out.printf("put_thread_cpu_us %d %.1f%n", n, threadCpu / 1e3 / (k * t.length));
            }
        });
    }
}
