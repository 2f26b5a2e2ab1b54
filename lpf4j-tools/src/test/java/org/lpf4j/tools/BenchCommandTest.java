package org.lpf4j.tools;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.tools.bench.BsmpWorkloads;
import org.lpf4j.tools.bench.CollectiveWorkloads;
import org.lpf4j.tools.bench.DebugWorkloads;
import org.lpf4j.tools.bench.SideBySide;
import org.lpf4j.tools.bench.Workload;
import org.lpf4j.tools.bench.Workloads;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BenchCommandTest {

    @AfterEach
    void noThreadsLeft() { Cli.assertNoLpfThreads(); }

    /**
     * The table runs in this JVM; an engine that cannot give --procs here (hybrid outside a
     * launcher: one node of its threads) is refused before anything starts, not shown as empty columns.
     */
    @Test
    void processesTheEngineCannotGiveHereAreRefusedBeforeAnythingStarts() {
        Launchable.need("hybrid");
        Cli r = Cli.run("bench", "--engine", "hybrid", "--quick", "--procs", "1,4096");
        r.expectError(UsageException.EXIT_CODE, "lpf bench: the hybrid engine runs at most");
        assertTrue(r.err().contains("--procs asks for 4096"), r.err());
        assertTrue(!r.out().contains("workload"), "nothing measured: " + r.out());
    }

    /**
     * The README's rule: lpf bench --engine hybrid runs one node of lpf.engine.hybrid.threads
     * processes (the cores by default) in this JVM; --procs beyond that is refused before anything
     * runs, naming the limit and the parameter that raises it, and with that parameter it runs.
     */
    @Test
    void theHybridNodeIsNotGrownBeyondItsThreads() {
        Launchable.need("hybrid");
        int cores = Runtime.getRuntime().availableProcessors();
        int p = cores + 2;
        Cli r = Cli.run("bench", "--engine", "hybrid", "--quick", "--procs", "1," + p);
        r.expectError(UsageException.EXIT_CODE, "lpf bench: the hybrid engine runs at most " + cores + " processes in this"
                + " JVM (its machine size here), and --procs asks for " + p);
        assertTrue(r.err().contains("raise the limit with --param lpf.engine.hybrid.threads=" + p), r.err());
        assertTrue(!r.out().contains("workload"), "nothing measured: " + r.out());

        String out = Cli.run("bench", "--engine", "hybrid", "--quick", "--reps", "1", "--procs", "1," + p,
                "--param", "lpf.engine.hybrid.threads=" + p).expect(0).out();
        assertTrue(out.lines().anyMatch(l -> l.matches("workload\\s+unit\\s+p=1\\s+p=" + p)), out);
    }

    @Test
    void quickRunPrintsEveryRowWithPositiveNumbersWhereMeasured() {
        Cli r = Cli.run("bench", "--reps", "3", "--quick").expect(0);
        String out = r.out();
        assertTrue(out.contains("median of 3 repetitions"), out);
        String[] lines = out.split("\\R");
        int header = -1;
        for (int i = 0; i < lines.length; i++) if (lines[i].startsWith("workload")) header = i;
        assertTrue(header >= 0, out);
        assertTrue(lines[header].matches("workload\\s+unit\\s+p=1\\s+p=2\\s+p=4\\s+p=8"), lines[header]);

        List<String> names = new ArrayList<>();
        for (Workload w : Workloads.all()) names.add(w.name());
        for (SideBySide.Ratio ratio : Workloads.allRatios()) names.add(ratio.name());
        assertTrue(names.size() >= 27, "every group of rows: " + names);
        int legend = header + 1;
        while (legend < lines.length && !lines[legend].startsWith("GB/s =")) legend++;
        assertEquals(names.size(), legend - header - 1, "one line per row, then the legend: " + out);
        int[] procs = {1, 2, 4, 8};
        for (int k = 0; k < names.size(); k++) {
            String name = names.get(k);
            String line = lines[header + 1 + k];
            assertTrue(line.startsWith(name + " "), "row " + k + " is '" + name + "': " + line);
            String[] cells = line.substring(name.length()).trim().split("\\s+");
            String[] values = java.util.Arrays.copyOfRange(cells, cells.length - procs.length, cells.length);
            for (int c = 0; c < procs.length; c++) {
                boolean measured = expectedAt(name, procs[c]);
                if (!measured) {
                    assertEquals("-", values[c], line);
                    continue;
                }
                double v = Double.parseDouble(values[c]);
                assertTrue(v > 0 && Double.isFinite(v), "positive value at p=" + procs[c] + ": " + line);
                // Ratios are not bounded here: a --quick run on a loaded 2-core machine measures
                // the debug layer at p = 4 anywhere from 5x to 2000x; the values only need to exist.
                if (name.contains("GB")) assertTrue(v < 10_000, line);
            }
        }
    }

    /** Where each row is measured in the default columns (1, 2, 4, 8). */
    private static boolean expectedAt(String row, int p) {
        if (row.equals("empty sync")) return true;
        if (row.equals(Workloads.COPY_1MIB) || row.equals(Workloads.COPY_64KIB) || row.equals(Workloads.COPY_1MIB_ENGINES)) return p == 1;
        if (row.equals(Workloads.COPY_1MIB_AT_ONCE) || row.startsWith("1 MiB put / copy at once")) return p == 2 || p == 4;
        if (row.equals(Workloads.ROUND_TRIP) || row.startsWith("empty sync / cache line")) return p == 2;
        if (row.equals(BsmpWorkloads.BSMP) || row.equals(BsmpWorkloads.RAW_PUT) || row.startsWith("BSMP /")) {
            return p == 2 || p == 4;
        }
        if (row.startsWith("broadcast / 1 MiB put")) return p == 2 || p == 4; // the put row runs at p <= 4
        if (row.startsWith("allreduce") || row.startsWith("broadcast")) return p >= 2;
        return p <= 4;
    }

    @Test
    void newRowsAreThere() {
        // names the issues ask for, so a renamed row is noticed
        for (String name : List.of(CollectiveWorkloads.ALLREDUCE, CollectiveWorkloads.ALLREDUCE_BY_HAND,
                CollectiveWorkloads.BROADCAST, CollectiveWorkloads.BROADCAST_BY_HAND, BsmpWorkloads.BSMP,
                BsmpWorkloads.RAW_PUT, "empty sync" + DebugWorkloads.ENGINE, "empty sync" + DebugWorkloads.DEBUG_ON,
                "empty sync" + DebugWorkloads.viaLpfRoot(), "8 B put to next pid + sync" + DebugWorkloads.DEBUG_ON)) {
            assertTrue(Workloads.all().stream().anyMatch(w -> w.name().equals(name)), name);
        }
        for (String ratio : List.of("allreduce / empty sync (time)", "broadcast / 1 MiB put (bandwidth)",
                "BSMP / raw put (message rate)", "empty sync: Lpf.root() / engine root (time)",
                "8 B put to next pid + sync: debug on / engine root (time)")) {
            assertTrue(Workloads.allRatios().stream().anyMatch(r -> r.name().equals(ratio)), ratio);
        }
    }

    @Test
    void procsOptionChoosesTheColumns() {
        String out = Cli.run("bench", "--reps", "1", "--quick", "--procs", "3").expect(0).out();
        String header = out.lines().filter(l -> l.startsWith("workload")).findFirst().orElseGet(() -> fail(out));
        assertTrue(header.matches("workload\\s+unit\\s+p=3"), header);
        String ratio = out.lines().filter(l -> l.startsWith("1 MiB put / copy")).findFirst().orElseGet(() -> fail(out));
        assertTrue(ratio.trim().endsWith("-"), "no copy at p=1 to compare with: " + ratio);
    }
}
