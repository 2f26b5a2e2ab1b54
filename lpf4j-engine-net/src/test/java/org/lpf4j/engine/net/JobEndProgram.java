package org.lpf4j.engine.net;

import org.lpf4j.Lpf;

/**
 * The program of {@link JobEndTest}: every serving rank waits {@code args[0]} ms after it got the
 * STOP before it passes it on (a rank thread that the scheduler runs late); pid 0 runs one section
 * of all the job's ranks, then returns from {@code main}, which ends its JVM.
 */
public final class JobEndProgram {
    private JobEndProgram() {}

    public static void main(String[] args) {
        long late = Long.parseLong(args[0]);
        NetRuntime.beforePassingOnStop = () -> {
            try {
                Thread.sleep(late);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        int p = Lpf.root().probe().p();
        Lpf.root().exec(p, ctx -> ctx.sync());
        System.out.println("SECTION ENDED");
    }
}
