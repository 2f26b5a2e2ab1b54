package org.lpf4j.engine.hybrid;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;

/**
 * Run under mpirun by {@link FaultTest}: the last pid of an exec over the whole hybrid machine
 * (on the last node) fails in the way the first argument names, after 20 good syncs, while every
 * other process syncs in a loop:
 * <ul>
 *   <li>{@code throw}: it throws {@code IllegalStateException("planned failure")};</li>
 *   <li>{@code early}: it returns from its SPMD function;</li>
 *   <li>{@code kill}: it SIGKILLs its own JVM (the node);</li>
 *   <li>{@code stop}: it stops its own JVM with {@code kill -STOP} (prints {@code OSPID <os pid>} first).</li>
 * </ul>
 * It prints {@code FAILING pid p at <epoch ms>} first; rank 0 prints {@code FATAL at <epoch ms>: <message>}
 * when exec throws {@link FatalException}, and the cause.
 */
public final class FaultMain {
    private FaultMain() {}

    static final class Faulty implements Spmd {
        private static final long serialVersionUID = 1L;
        private final String mode;

        Faulty(String mode) { this.mode = mode; }

        @Override
        public void run(Context ctx) throws Exception {
            int p = ctx.nprocs();
            for (int i = 0; i < 20; i++) ctx.sync();
            if (ctx.pid() == p - 1) {
                System.out.println("FAILING pid " + ctx.pid() + " at " + System.currentTimeMillis());
                System.out.flush();
                switch (mode) {
                    case "throw" -> throw new IllegalStateException("planned failure");
                    case "early" -> { return; }
                    case "kill" -> {
                        new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start().waitFor();
                        Thread.sleep(60_000);
                    }
                    case "stop" -> {
                        long pid = ProcessHandle.current().pid();
                        System.out.println("OSPID " + pid);
                        System.out.flush();
                        new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start().waitFor();
                    }
                    default -> throw new IllegalArgumentException(mode);
                }
            }
            while (true) ctx.sync();
        }
    }

    public static void main(String[] args) {
        Context root = Lpf.root("hybrid");
        try {
            root.exec(root.probe().p(), new Faulty(args[0]));
            System.out.println("NO FAILURE");
        } catch (FatalException e) {
            System.out.println("FATAL at " + System.currentTimeMillis() + ": " + e.getMessage());
            System.out.println("CAUSE " + e.getCause());
        }
    }
}
