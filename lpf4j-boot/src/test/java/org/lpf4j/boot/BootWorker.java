package org.lpf4j.boot;

import org.lpf4j.spi.BootModule;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;
import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.boot.FenceOptions;

import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * The main class of the test jobs' processes: selects the boot module as a real program would
 * (ServiceLoader, priorities), opens a session and runs a mode.
 * <ul>
 *   <li>{@code rules [OPTIONAL...]}: {@link BootRules}, skipping the named optional rules; prints
 *       {@code PASS rank r}.</li>
 *   <li>{@code victim V}: after a first fence everyone prints {@code READY}; rank V then waits to
 *       be killed, the others enter a fence (timeout 10 s) that must fail naming V and print
 *       {@code FAILED-AS-EXPECTED ms}.</li>
 * </ul>
 * Exit status 0 on success, 1 on a broken rule (the error is printed).
 */
public final class BootWorker {
    private BootWorker() {}

    /** @param args the mode and its arguments */
    public static void main(String[] args) throws Exception {
        BootModule m = Components.installed().select(Framework.BOOT, BootModule.class);
        int status = 0;
        BootModule.Membership who = m.membership();
        try (BootSession s = m.openSession()) {
            String tag = "[" + s.module() + " " + s.rank() + "/" + s.size() + "] ";
            if (who.rank() != s.rank() || who.size() != s.size()) throw new AssertionError("membership " + who + " but session " + tag);
            switch (args[0]) {
                case "rules" -> {
                    Set<BootRules.Optional> skip = EnumSet.noneOf(BootRules.Optional.class);
                    for (int i = 1; i < args.length; i++) skip.add(BootRules.Optional.valueOf(args[i]));
                    BootRules.run(s, skip, rule -> System.out.println(tag + rule));
                    System.out.println("PASS rank " + s.rank());
                }
                case "victim" -> {
                    int victim = Integer.parseInt(args[1]);
                    s.fence(FenceOptions.collect());
                    System.out.println("READY " + s.rank());
                    System.out.flush();
                    if (s.rank() == victim) {
                        Thread.sleep(60_000);
                        System.out.println("NOT KILLED");
                        status = 1;
                    } else {
                        Thread.sleep(1_000);
                        long t0 = System.nanoTime();
                        try {
                            s.fence(FenceOptions.barrier().timeout(Duration.ofSeconds(10)));
                            System.out.println("FENCE SUCCEEDED WITHOUT THE VICTIM");
                            status = 1;
                        } catch (BootException e) {
                            long ms = (System.nanoTime() - t0) / 1_000_000;
                            System.out.println("FAILED-AS-EXPECTED " + ms + " ms missing=" + Arrays.toString(e.missingRanks())
                                    + " : " + e.getMessage());
                            if (!Arrays.equals(e.missingRanks(), new int[]{victim})) status = 1;
                        }
                    }
                }
                default -> throw new IllegalArgumentException("mode " + args[0]);
            }
        } catch (Throwable t) {
            t.printStackTrace(System.out);
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }
}
