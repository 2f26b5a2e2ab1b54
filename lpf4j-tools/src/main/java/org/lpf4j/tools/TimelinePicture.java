package org.lpf4j.tools;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * The timeline picture of {@code lpf run --profile}: processes as rows, supersteps as columns,
 * each cell the process's compute (blue) followed by its wait in the sync (orange), the process of
 * largest compute in each superstep outlined in red. A column's width grows with the superstep's
 * measured time (a minimum width keeps short supersteps visible), so the picture reads as a time
 * line. With more than {@value #MAX_COLUMNS} supersteps only the {@value #MAX_COLUMNS} slowest are
 * drawn, in order, and the picture says so. Drawn once on an abstract {@link Canvas}, written as
 * PNG (Java2D) and as SVG (text written here: rectangles and labels). Cost: O(p · columns).
 */
final class TimelinePicture {
    /** The most supersteps drawn as columns. */
    static final int MAX_COLUMNS = 80;
    private static final int WIDTH = 1200, LEFT = 64, RIGHT = 16, TOP = 58, BOTTOM = 58, MIN_COLUMN = 4;
    private static final Color COMPUTE = new Color(0x4472C4), WAIT = new Color(0xF4B183), SLOWEST = new Color(0xD62728),
            ROW = new Color(0xF2F2F2), INK = new Color(0x202020);

    private TimelinePicture() {}

    /** What the picture is drawn on: filled and outlined rectangles and one-line text. */
    private interface Canvas {
        void fill(double x, double y, double w, double h, Color c);

        /** @param note a tooltip (the SVG's {@code <title>}), or null */
        void outline(double x, double y, double w, double h, Color c, float stroke, String note);

        /** @param anchor 0 start, 1 middle, 2 end of the text at x; y is the baseline */
        void text(double x, double y, String s, int size, boolean bold, int anchor);
    }

    /**
     * Draws the records and writes them to {@code png} and {@code svg}.
     *
     * @param title what ran (class and engine), shown in the title line
     * @throws UncheckedIOException if a file cannot be written
     */
    static void write(ProfileRecords r, String title, Path png, Path svg) {
        int[] columns = columns(r);
        int rowHeight = Math.max(3, Math.min(28, 640 / Math.max(1, r.p)));
        int height = TOP + r.p * rowHeight + BOTTOM;
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        StringBuilder svgText = new StringBuilder();
        try {
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            Canvas both = both(new Java2d(g), new Svg(svgText));
            both.fill(0, 0, WIDTH, height, Color.WHITE);
            draw(both, r, title, columns, rowHeight, height);
        } finally {
            g.dispose();
        }
        try {
            ImageIO.write(image, "png", png.toFile());
            Files.writeString(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
                    + WIDTH + "\" height=\"" + height + "\" viewBox=\"0 0 " + WIDTH + " " + height + "\" font-family=\"sans-serif\">\n"
                    + svgText + "</svg>\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("lpf run --profile: cannot write the timeline: " + e.getMessage(), e);
        }
    }

    /** @return the supersteps drawn: all, or the {@value #MAX_COLUMNS} slowest in index order */
    static int[] columns(ProfileRecords r) {
        if (r.steps <= MAX_COLUMNS) return java.util.stream.IntStream.range(0, r.steps).toArray();
        int[] slowest = r.slowestSteps(MAX_COLUMNS);
        Arrays.sort(slowest);
        return slowest;
    }

    private static void draw(Canvas c, ProfileRecords r, String title, int[] columns, int rowHeight, int height) {
        long total = 0;
        for (long m : r.measured) total += m;
        c.text(LEFT, 20, "Supersteps of " + title + ": p=" + r.p + ", " + r.steps + " supersteps, " + ProfileRecords.time(total),
                14, true, 0);
        // column widths: a minimum, and the rest shared in proportion to the measured time
        double avail = WIDTH - LEFT - RIGHT, shown = 0;
        for (int s : columns) shown += r.measured[s];
        double spare = Math.max(0, avail - columns.length * MIN_COLUMN);
        double x = LEFT;
        int top = TOP;
        for (int q = 0; q < r.p; q++) {
            if (q % 2 == 0) c.fill(LEFT, top + q * rowHeight, avail, rowHeight, ROW);
            if (rowHeight >= 9 && (r.p <= 32 || q % Math.max(1, r.p / 16) == 0)) {
                c.text(LEFT - 6, top + q * rowHeight + rowHeight / 2.0 + 4, "pid " + q, 10, false, 2);
            }
        }
        double lastLabelEnd = -1;
        for (int s : columns) {
            double width = MIN_COLUMN + (shown > 0 ? spare * r.measured[s] / shown : spare / columns.length);
            double scale = r.measured[s] > 0 ? (width - 1) / r.measured[s] : 0;
            String label = Integer.toString(s);
            if (x + width / 2 - label.length() * 3.5 > lastLabelEnd + 4) {
                c.text(x + width / 2, top - 6, label, 10, false, 1);
                lastLabelEnd = x + width / 2 + label.length() * 3.5;
            }
            for (int q = 0; q < r.p; q++) {
                double y = top + q * rowHeight + (rowHeight >= 6 ? rowHeight * 0.15 : 0);
                double barHeight = rowHeight >= 6 ? rowHeight * 0.7 : rowHeight;
                double cw = Math.min(width - 1, r.compute[q][s] * scale);
                double ww = Math.min(width - 1 - cw, r.wait[q][s] * scale);
                if (cw > 0) c.fill(x, y, cw, barHeight, COMPUTE);
                if (ww > 0) c.fill(x + cw, y, ww, barHeight, WAIT);
                if (q == r.slowest[s]) {
                    c.outline(x, y, Math.max(cw, 1), barHeight, SLOWEST, 2f, "superstep " + s + ": slowest pid " + q
                            + ", compute " + ProfileRecords.time(r.compute[q][s]) + ", h " + r.h[s] + " B");
                }
            }
            x += width;
        }
        c.text(LEFT - 6, top - 6, "superstep", 10, false, 2);
        double legend = top + r.p * rowHeight + 22;
        c.fill(LEFT, legend - 10, 12, 12, COMPUTE);
        c.text(LEFT + 18, legend, "compute", 12, false, 0);
        c.fill(LEFT + 100, legend - 10, 12, 12, WAIT);
        c.text(LEFT + 118, legend, "wait in sync", 12, false, 0);
        c.outline(LEFT + 230, legend - 10, 12, 12, SLOWEST, 2f, null);
        c.text(LEFT + 248, legend, "slowest process of the superstep (largest compute)", 12, false, 0);
        String note = "column width grows with the superstep's measured time (minimum " + MIN_COLUMN + " px)"
                + (columns.length < r.steps ? String.format(Locale.ROOT, "; showing the %d slowest of %d supersteps, in order",
                columns.length, r.steps) : "; the last column is the compute after the last sync");
        c.text(LEFT, legend + 20, note, 11, false, 0);
    }

    private static Canvas both(Canvas a, Canvas b) {
        return new Canvas() {
            @Override public void fill(double x, double y, double w, double h, Color color) {
                a.fill(x, y, w, h, color);
                b.fill(x, y, w, h, color);
            }

            @Override public void outline(double x, double y, double w, double h, Color color, float stroke, String note) {
                a.outline(x, y, w, h, color, stroke, note);
                b.outline(x, y, w, h, color, stroke, note);
            }

            @Override public void text(double x, double y, String s, int size, boolean bold, int anchor) {
                a.text(x, y, s, size, bold, anchor);
                b.text(x, y, s, size, bold, anchor);
            }
        };
    }

    private record Java2d(Graphics2D g) implements Canvas {
        @Override public void fill(double x, double y, double w, double h, Color c) {
            g.setColor(c);
            g.fill(new Rectangle2D.Double(x, y, w, h));
        }

        @Override public void outline(double x, double y, double w, double h, Color c, float stroke, String note) {
            g.setColor(c);
            g.setStroke(new BasicStroke(stroke));
            g.draw(new Rectangle2D.Double(x, y, w, h));
        }

        @Override public void text(double x, double y, String s, int size, boolean bold, int anchor) {
            g.setColor(INK);
            g.setFont(new Font(Font.SANS_SERIF, bold ? Font.BOLD : Font.PLAIN, size));
            double width = g.getFontMetrics().stringWidth(s);
            g.drawString(s, (float) (x - width * anchor / 2), (float) y);
        }
    }

    private record Svg(StringBuilder b) implements Canvas {
        @Override public void fill(double x, double y, double w, double h, Color c) {
            b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>%n",
                    x, y, w, h, hex(c)));
        }

        @Override public void outline(double x, double y, double w, double h, Color c, float stroke, String note) {
            b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\""
                    + " stroke=\"%s\" stroke-width=\"%.1f\"%s%n", x, y, w, h, hex(c), stroke,
                    note == null ? "/>" : "><title>" + escape(note) + "</title></rect>"));
        }

        @Override public void text(double x, double y, String s, int size, boolean bold, int anchor) {
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\"%s text-anchor=\"%s\" fill=\"%s\">%s</text>%n",
                    x, y, size, bold ? " font-weight=\"bold\"" : "", new String[]{"start", "middle", "end"}[anchor], hex(INK),
                    escape(s)));
        }

        private static String escape(String s) { return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"); }

        private static String hex(Color c) { return String.format("#%06x", c.getRGB() & 0xFFFFFF); }
    }
}
