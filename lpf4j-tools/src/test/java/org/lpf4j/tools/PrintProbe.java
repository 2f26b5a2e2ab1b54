package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;

/**
 * A user program for {@link ProbeCacheCommandTest}: every process probes (collective on the mpi
 * engine); every process prints g and l at 8 bytes exactly ({@link Double#toString}) and how
 * long its probe took, so a test can tell figures read from the cache from a new measurement.
 */
public class PrintProbe implements Spmd {
    /** For lpf run. */
    public PrintProbe() {}

    @Override
    public void run(Context ctx) {
        long t0 = System.nanoTime();
        Machine m = ctx.probe();
        long nanos = System.nanoTime() - t0;
        // One write per line: the ranks share the launcher's standard output.
        System.out.print(String.format("pid %d of %d: g8=%s l8=%s warnings=%d probe=%.1f ms%n", ctx.pid(), ctx.nprocs(),
                Double.toString(m.g(8)), Double.toString(m.l(8)), m.warnings().size(), nanos / 1e6));
        System.out.flush();
    }
}
