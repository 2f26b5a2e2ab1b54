// Start-up time of a job at pid 0: from the last JVM's main (the job cannot start before it) to the
// end of the first superstep that hears from every process (docs/performance.md, "Start-up").
// Prints "startup p=P from_last_main_ms=T from_first_main_ms=T", and with a second argument T0 (the
// epoch milliseconds at which the job's command started) also "from_command_ms=T". Run by
// docs/scripts/startup-vs-p.sh and docs/scripts/startup-net-vs-mpi.sh.
import org.lpf4j.*;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

public class StartupTime {
    static volatile long entered;
    public static void main(String[] args) {
        entered = System.currentTimeMillis();
        int p = Integer.parseInt(args[0]);
        long command = args.length > 1 ? Long.parseLong(args[1]) : 0;
        Lpf.root().exec(p, (Spmd & java.io.Serializable) ctx -> {
            int s = ctx.pid(), n = ctx.nprocs();
            MemorySegment mine = Arena.ofAuto().allocate(8), all = Arena.ofAuto().allocate(8L * n);
            mine.set(ValueLayout.JAVA_LONG, 0, entered);
            ctx.resizeMemoryRegister(2); ctx.resizeMessageQueue(n);
            ctx.sync();
            Memslot m = ctx.registerLocal(mine), a = ctx.registerGlobal(all);
            ctx.sync();
            ctx.put(m, 0, 0, a, 8L * s, 8);
            ctx.sync();
            long done = System.currentTimeMillis();
            if (s == 0) {
                long last = 0, first = Long.MAX_VALUE;
                for (int q = 0; q < n; q++) { long e = all.get(ValueLayout.JAVA_LONG, 8L * q); last = Math.max(last, e); first = Math.min(first, e); }
                System.out.printf("startup p=%d from_last_main_ms=%d from_first_main_ms=%d%s%n", n, done - last, done - first,
                        command > 0 ? " from_command_ms=" + (done - command) : "");
            }
        });
    }
}
