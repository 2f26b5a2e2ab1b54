package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.lpf4j.testkit.MpiJob;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hybrid benchmark (behind {@code -Dlpf.test.bench=true}): p = 4 as 2 JVMs × 2 threads (hybrid),
 * 4 JVMs (MPI engine) and 1 JVM × 4 threads (threads engine), interleaved in rounds
 * ({@code lpf.test.bench.rounds}, default 5) so that load from elsewhere hits all three alike;
 * prints each workload's median over the rounds of the per-round medians ({@link BenchMain}).
 * {@code lpf.test.bench.hybridJvm} adds JVM options to the hybrid JVMs (to try its settings).
 */
@EnabledIfSystemProperty(named = "lpf.test.bench", matches = "true")
class BenchTest {
    /** The same allreduce algorithm on every engine (the library's one-superstep variant). */
    private static final String ALLREDUCE = "-Dlpf.coll.costmodel.allreduce=direct";
    /** Extra JVM options for the hybrid JVMs only ({@code lpf.test.bench.hybridJvm}, blank-separated): for experiments with its settings. */
    private static final String[] HYBRID_EXTRA = System.getProperty("lpf.test.bench.hybridJvm", "").isBlank() ? new String[0]
            : System.getProperty("lpf.test.bench.hybridJvm").strip().split("\\s+");
    private static final Pattern LINE = Pattern.compile("BENCH (\\S+) median_us=([0-9.]+)");

    @Test
    void hybridAgainstMpiAndThreadsAtP4() {
        int rounds = Integer.getInteger("lpf.test.bench.rounds", 5);
        Map<String, Map<String, List<Double>>> results = new LinkedHashMap<>();
        for (int r = 0; r < rounds; r++) {
            collect(results, "hybrid 2x2", MpiJob.openMpi().jvm("-Dlpf.engine.hybrid.nodes=rank", "-Dlpf.engine.hybrid.threads=2",
                    "-Dlpf.engine.hybrid.probeMillis=100", ALLREDUCE).jvm(HYBRID_EXTRA).run(2, Duration.ofMinutes(3), BenchMain.class, "hybrid", "4"));
            collect(results, "mpi 4", MpiJob.openMpi().jvm(ALLREDUCE).run(4, Duration.ofMinutes(3), BenchMain.class, "mpi", "4", "16384", "false"));
            collect(results, "threads 1x4", MpiJob.openMpi().jvm("-Dlpf.engine.threads.procs=4", ALLREDUCE)
                    .run(1, Duration.ofMinutes(3), BenchMain.class, "threads", "4"));
        }
        StringBuilder table = new StringBuilder(String.format("%-30s", "workload (us, median)"));
        List<String> engines = new ArrayList<>(results.keySet());
        for (String e : engines) table.append(String.format("%14s", e));
        table.append(String.format("%16s%n", "mpi / hybrid"));
        for (String w : results.get(engines.get(0)).keySet()) {
            table.append(String.format("%-30s", w));
            for (String e : engines) table.append(String.format("%14.2f", median(results.get(e).get(w))));
            table.append(String.format("%16.2f%n", median(results.get("mpi 4").get(w)) / median(results.get("hybrid 2x2").get(w))));
        }
        System.out.println(table);
    }

    private static void collect(Map<String, Map<String, List<Double>>> results, String engine, MpiJob.Result r) {
        assertTrue(r.out().contains("BENCH DONE"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "left behind: " + r.ghosts());
        Matcher m = LINE.matcher(r.out());
        while (m.find()) {
            results.computeIfAbsent(engine, k -> new LinkedHashMap<>()).computeIfAbsent(m.group(1), k -> new ArrayList<>())
                    .add(Double.parseDouble(m.group(2)));
        }
    }

    private static double median(List<Double> xs) {
        if (xs == null) return Double.NaN;
        List<Double> s = new ArrayList<>(xs);
        s.sort(null);
        return s.get(s.size() / 2);
    }
}
