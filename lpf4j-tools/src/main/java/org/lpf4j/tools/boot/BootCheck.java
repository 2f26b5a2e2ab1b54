package org.lpf4j.tools.boot;

import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.boot.FenceOptions;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.TreeSet;

/**
 * What every process of {@code lpf boot-test} does: publishes its host name and a value, commits,
 * takes part in a collect-data fence, and checks every process's values; repeated, each round
 * with new values, the commit + collect-data fence timed, followed by an untimed barrier. Cost per
 * round: two fences plus p gets.
 */
public final class BootCheck {
    private BootCheck() {}

    /**
     * @param module     the boot module's name
     * @param p          the job size
     * @param hosts      the distinct host names seen
     * @param medianNanos median commit + fence time of the measured rounds at rank 0
     * @param minNanos   fastest round
     * @param rounds     measured rounds
     */
    public record Result(String module, int p, int hosts, long medianNanos, long minNanos, int rounds) {
        /** @return the line rank 0 prints, parsed by the launcher */
        public String line() {
            return String.format("BOOT-TEST module=%s p=%d hosts=%d rounds=%d median_us=%.1f min_us=%.1f", module, p, hosts, rounds,
                    medianNanos / 1e3, minNanos / 1e3);
        }

        /**
         * @param line a line printed by {@link #line()}
         * @return the result, or {@code null} if the line is not one
         */
        public static Result parse(String line) {
            if (!line.startsWith("BOOT-TEST ")) return null;
            java.util.Map<String, String> f = new java.util.HashMap<>();
            for (String part : line.substring(10).split(" ")) {
                int eq = part.indexOf('=');
                if (eq > 0) f.put(part.substring(0, eq), part.substring(eq + 1));
            }
            return new Result(f.get("module"), Integer.parseInt(f.get("p")), Integer.parseInt(f.get("hosts")),
                    (long) (Double.parseDouble(f.get("median_us")) * 1e3), (long) (Double.parseDouble(f.get("min_us")) * 1e3),
                    Integer.parseInt(f.get("rounds")));
        }
    }

    static byte[] value(int rank, int round, int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) b[i] = (byte) (rank * 31 + i * 7 + round * 13);
        return b;
    }

    /** @return this machine's host name */
    public static String hostName() {
        String h = System.getenv("HOSTNAME");
        if (h != null && !h.isBlank()) return h;
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "unknown-host";
        }
    }

    /**
     * Runs the check.
     *
     * @param s         this process's session
     * @param warmup    unmeasured rounds
     * @param rounds    measured rounds (≥ 1)
     * @param valueSize bytes of each value
     * @return the result (timings of this process)
     * @throws BootException  if a fence fails
     * @throws IllegalStateException naming the rank, key and round if a value is wrong
     */
    public static Result run(BootSession s, int warmup, int rounds, int valueSize) {
        int p = s.size();
        byte[] host = hostName().getBytes(StandardCharsets.UTF_8);
        long[] times = new long[rounds];
        TreeSet<String> hosts = new TreeSet<>();
        for (int round = 0; round < warmup + rounds; round++) {
            s.put("lpf.host", host);
            s.put("lpf.value", value(s.rank(), round, valueSize));
            long t0 = System.nanoTime();
            s.commit();
            s.fence(FenceOptions.collect());
            long t = System.nanoTime() - t0;
            if (round >= warmup) times[round - warmup] = t;
            for (int q = 0; q < p; q++) {
                byte[] v = s.get(q, "lpf.value");
                if (!Arrays.equals(v, value(q, round, valueSize))) {
                    throw new IllegalStateException("boot-test: rank " + s.rank() + " got a wrong 'lpf.value' of rank " + q
                            + " in round " + round + " (" + v.length + " bytes)");
                }
                if (round == 0) hosts.add(new String(s.get(q, "lpf.host"), StandardCharsets.UTF_8));
            }
            // Nobody re-puts before everybody checked: PMIx may show a re-committed value before the next fence.
            s.fence(FenceOptions.barrier());
        }
        Arrays.sort(times);
        return new Result(s.module(), p, hosts.size(), times[rounds / 2], times[0], rounds);
    }
}
