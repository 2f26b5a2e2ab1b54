package org.lpf4j.tools.plot;

import org.junit.jupiter.api.Test;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.style.Styler;
import org.lpf4j.Machine;
import org.lpf4j.bench.programs.ProgramResult;
import org.lpf4j.tools.bench.BenchTable;

import java.awt.image.BufferedImage;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The charts' layout: what was wrong in issue 22 (cut legend, ticks between process counts, an unlabelled axis). */
class ChartsTest {
    private static final int[] P = {1, 2, 4};

    private static List<ProgramResult> programs() {
        String[][] names = {{"sample sort", "Arrays.parallelSort"}, {"matrix multiply", "parallel-streams blocked"},
                {"FFT", "JTransforms"}, {"PageRank", "parallel-streams CSR"}};
        return java.util.Arrays.stream(names).map(n -> new ProgramResult(n[0], "n=1", n[1], P, new double[] {4, 2, 1},
                new double[] {4, 3, 2}, new String[] {"", "", ""})).toList();
    }

    /** No pixel of the leftmost and rightmost columns below the plot is drawn on: nothing is cut at the sides. */
    private static void assertNothingCutAtTheSides(XYChart chart) {
        BufferedImage image = BitmapEncoder.getBufferedImage(chart);
        int background = chart.getStyler().getChartBackgroundColor().getRGB();
        for (int y = image.getHeight() * 3 / 4; y < image.getHeight(); y++) {
            for (int x : new int[] {0, 1, image.getWidth() - 2, image.getWidth() - 1}) {
                assertEquals(background, image.getRGB(x, y), "pixel (" + x + ", " + y + ") of " + chart.getTitle()
                        + ": the legend is cut at the chart's edge");
            }
        }
    }

    @Test
    void theRatioChartsLegendFitsOneEntryPerLineWhenTheEntriesAreWiderThanTheChart() {
        Map<String, XYChart> charts = Charts.programCharts(programs());
        XYChart ratio = charts.get("programs-ratio");
        assertEquals(Styler.LegendLayout.Vertical, ratio.getStyler().getLegendLayout());
        assertTrue(ratio.getHeight() > charts.get("program-fft").getHeight(), "taller by the legend's lines");
        assertNothingCutAtTheSides(ratio);
        XYChart fft = charts.get("program-fft");
        assertEquals(Styler.LegendLayout.Horizontal, fft.getStyler().getLegendLayout(), "three short entries fit side by side");
        assertNothingCutAtTheSides(fft);
    }

    @Test
    void theProcessAxesHaveWholeNumberTicks() {
        BenchTable table = new BenchTable(P, List.of(new BenchTable.Row("empty sync", "µs", new double[] {1, 2, 3})));
        for (XYChart chart : Charts.workloadCharts(table).values()) assertEquals("#", chart.getStyler().getXAxisDecimalPattern());
        for (XYChart chart : Charts.programCharts(programs()).values()) {
            assertEquals("#", chart.getStyler().getXAxisDecimalPattern(), chart.getTitle());
        }
    }

    @Test
    void theProbesLAxisIsTitledAndSpansWholeDecadesSoThatItHasLabels() {
        // l within one decade (2 to 3 µs): a log axis over just that range has no label at all
        Machine m = new Machine(2, 2, new long[] {8, 1024, 524288}, new double[] {2e-9, 5e-11, 4e-11},
                new double[] {2e-6, 2.5e-6, 3e-6});
        XYChart chart = Charts.probeChart(m, "probe");
        assertEquals("l (µs)", chart.getYAxisGroupTitle(1));
        assertEquals(Styler.YAxisPosition.Right, chart.getStyler().getYAxisGroupPosistion(1));
        assertTrue(chart.getStyler().isYAxisTicksVisible());
        assertEquals(1.0, chart.getStyler().getYAxisMin(1), 1e-12);
        assertEquals(10.0, chart.getStyler().getYAxisMax(1), 1e-12);
        assertEquals(0.01, chart.getStyler().getYAxisMin(0), 1e-15);
        assertEquals(10.0, chart.getStyler().getYAxisMax(0), 1e-12);
        BitmapEncoder.getBufferedImage(chart); // draws
    }
}
