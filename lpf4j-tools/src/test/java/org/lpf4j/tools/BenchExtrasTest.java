package org.lpf4j.tools;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.lpf4j.tools.bench.Workload;
import org.lpf4j.tools.bench.Workloads;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code lpf bench --programs}, {@code --runs}, the step latency table, and the plots of
 * {@code lpf bench --plot} and {@code lpf probe --plot}, at tiny sizes.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BenchExtrasTest {
    private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    @AfterEach
    void noThreadsLeft() { Cli.assertNoLpfThreads(); }

    /** Asserts {@code base.png} is a PNG with a non-trivial image and {@code base.svg} an SVG document. */
    static void assertPlot(Path base) throws IOException {
        Path png = Path.of(base + ".png"), svg = Path.of(base + ".svg");
        assertTrue(Files.isRegularFile(png), png + " written");
        byte[] bytes = Files.readAllBytes(png);
        assertArrayEquals(PNG_MAGIC, java.util.Arrays.copyOf(bytes, 8), png + " starts with the PNG signature");
        java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(png.toFile());
        assertTrue(image != null && image.getWidth() >= 400 && image.getHeight() >= 300, png + " decodes");
        assertTrue(Files.isRegularFile(svg), svg + " written");
        String text = Files.readString(svg, StandardCharsets.UTF_8);
        assertTrue(text.contains("<svg") && text.trim().endsWith("</svg>"), svg + " is an SVG document");
    }

    @Test
    void programsSectionPrintsEveryProgramBesideItsPeerAndPlotsIt(@TempDir Path dir) throws IOException {
        String out = Cli.run("bench", "--programs", "--quick", "--reps", "1", "--procs", "1,2", "--plot",
                dir.toString()).expect(0).out();
        String header = out.lines().filter(l -> l.startsWith("workload")).findFirst().orElseGet(() -> fail(out));
        assertTrue(header.matches("workload\\s+unit\\s+p=1\\s+p=2"), header);
        for (String program : List.of("sample sort", "matrix multiply", "FFT", "PageRank")) {
            for (String suffix : List.of(": lpf4j speed-up", ": peer speed-up", ": lpf4j / peer")) {
                String row = out.lines().filter(l -> l.startsWith(program + suffix)).findFirst()
                        .orElseGet(() -> fail("row '" + program + suffix + "' in " + out));
                String[] cells = row.substring((program + suffix).length()).trim().split("\\s+");
                for (int c = cells.length - 2; c < cells.length; c++) {
                    double v = Double.parseDouble(cells[c]);
                    assertTrue(v > 0 && Double.isFinite(v), row);
                }
            }
        }
        for (String peer : List.of("Arrays.parallelSort", "parallel-streams blocked", "JTransforms", "parallel-streams CSR")) {
            assertTrue(out.contains(": " + peer + " "), peer + " in " + out);
        }
        assertTrue(out.contains("(sequential check: equal)") && out.contains("equals the sequential product")
                && out.contains("of the sequential FFT") && out.contains("equal the sequential ones"), out);
        for (String name : List.of("program-sample-sort", "program-matrix-multiply", "program-fft", "program-pagerank",
                "programs-ratio")) {
            assertPlot(dir.resolve(name));
        }
    }

    @Test
    void latencyTableAndRunsSpreadAndWorkloadPlots(@TempDir Path dir) throws IOException {
        String out = Cli.run("bench", "--quick", "--reps", "1", "--procs", "1,2", "--runs", "2", "--plot",
                dir.toString()).expect(0).out();
        assertTrue(out.contains("run 1 of 2") && out.contains("run 2 of 2"), out);
        List<String> lines = out.lines().toList();
        int latency = -1;
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith("step latency (µs)")) latency = i;
        assertTrue(latency >= 0, out);
        assertTrue(lines.get(latency).matches("step latency \\(µs\\)\\s+p=1 med/p99/max\\s+p=2 med/p99/max"),
                lines.get(latency));
        String emptySync = lines.get(latency + 1);
        assertTrue(emptySync.startsWith("empty sync "), emptySync);
        String[] cells = emptySync.substring("empty sync".length()).trim().split("\\s+");
        assertEquals(2, cells.length, emptySync);
        for (String cell : cells) {
            String[] v = cell.split("/");
            assertEquals(3, v.length, cell);
            double median = Double.parseDouble(v[0]), p99 = Double.parseDouble(v[1]), max = Double.parseDouble(v[2]);
            assertTrue(median > 0 && median <= p99 && p99 <= max, "median <= p99 <= max: " + cell);
        }
        int spread = lines.indexOf("spread over 2 runs: max/min of the medians per cell");
        assertTrue(spread >= 0, out);
        String row = lines.stream().skip(spread).filter(l -> l.startsWith("empty sync ")).findFirst().orElseGet(() -> fail(out));
        for (String v : row.substring("empty sync".length()).trim().split("\\s+")) {
            if (v.equals("max/min")) continue;
            assertTrue(Double.parseDouble(v) >= 1.0, row);
        }
        for (Workload w : Workloads.standard()) {
            assertPlot(dir.resolve("workload-" + org.lpf4j.tools.plot.Charts.slug(w.name())));
        }
    }

    @Test
    void probePlotDrawsGAndL(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("probe.png");
        String out = Cli.run("probe", "-p", "2", "--param", "lpf.engine.threads.probeMillis=50", "--plot",
                file.toString()).expect(0).out();
        assertTrue(out.contains("wrote " + file), out);
        assertPlot(dir.resolve("probe"));
        // VectorGraphics2D writes text as glyph outlines: the drawing is many paths
        String svg = Files.readString(dir.resolve("probe.svg"));
        assertTrue(svg.split("<path", -1).length > 20, "the SVG draws the axes, labels and two series");
    }
}
