package org.lpf4j;

import java.util.Arrays;

/**
 * What {@link Context#probe()} reports (the C API's {@code lpf_machine_t}): the number of
 * processes, the processors still free for nested {@code exec}, and the BSP parameters g and l
 * measured on this machine for this number of processes.
 *
 * <p>g and l are real measurements: the engine times h-relations of several sizes for each
 * message size in {@link #messageSizes()} and fits {@code T(h) = l + g·h} by least squares.
 * Between measured sizes the values are interpolated linearly in log(size); outside they are
 * clamped to the nearest measured size. Reading them costs a binary search.
 *
 * <p><b>g and l of q ≤ p processes</b> ({@link #g(int, long)}, {@link #l(int, long)}; the C
 * API's {@code g(p, size)} and {@code l(p, size)}), for pricing an algorithm step in which only
 * q processes of the context communicate (a strided collective, a level of a tree):
 * <ul>
 * <li>l(q, size) = l(size), <em>derived</em>: every sync of a context involves all of its p
 *     processes however few of them communicate, so the fixed cost of a superstep does not
 *     shrink with q.</li>
 * <li>g(q, size) is <em>measured</em> when the engine measured a section of q processes in this
 *     JVM ({@code probe()} from such a section; the harness caches it), and otherwise
 *     <em>derived</em> as g(size): q processes moving bytes contend for no more than p do, so
 *     the p-process figure is an upper bound.</li>
 * </ul>
 *
 * <p>A figure whose fit failed the engine's checks is reported as a conservative bound and
 * named in {@link #warnings()} (empty when every fit passed).
 *
 * <p><b>Levels.</b> An engine whose processes are grouped in nodes that share memory (threads
 * inside a JVM, JVMs across a network) may also report which pids share a node and the figures
 * of each level ({@link #levels()}, {@link MachineLevels}); the g and l above are then those of
 * the whole machine as the probe drives it (every process sending to every other, so a mix of
 * both levels). An engine without such a structure reports none. A two-level algorithm (the
 * collectives' tree) uses the levels when they are present.
 *
 * <p>Immutable.
 */
public final class Machine {
    private final int p;
    private final int freeP;
    private final long[] sizes;
    private final double[] g;
    private final double[] l;
    /** g rows measured with q &lt; p processes: gByQ[q] (null where not measured). */
    private final double[][] gByQ;
    private final java.util.List<String> warnings;
    /** The node structure and its two levels' figures, or null. */
    private final MachineLevels levels;

    /**
     * @param p     processes of the context that probed
     * @param freeP processors free for an {@code exec} from that context (≥ 0: an engine may
     *              report that none is free)
     * @param sizes measured message sizes in bytes, strictly increasing, at least one
     * @param g     seconds per byte for each size
     * @param l     seconds of fixed superstep cost for each size
     * @throws IllegalArgumentException if {@code p < 1}, {@code freeP < 0}, the arrays are empty or
     *                                  of different lengths, or the sizes do not increase
     */
    public Machine(int p, int freeP, long[] sizes, double[] g, double[] l) {
        if (p < 1 || freeP < 0 || sizes.length == 0 || sizes.length != g.length || sizes.length != l.length) {
            throw new IllegalArgumentException("Machine(p=" + p + ", freeP=" + freeP + ", " + sizes.length
                    + " sizes, " + g.length + " g, " + l.length + " l): inconsistent");
        }
        for (int i = 1; i < sizes.length; i++) {
            if (sizes[i] <= sizes[i - 1]) {
                throw new IllegalArgumentException("Machine: message sizes must increase: " + Arrays.toString(sizes));
            }
        }
        this.p = p;
        this.freeP = freeP;
        this.sizes = sizes.clone();
        this.g = g.clone();
        this.l = l.clone();
        this.gByQ = null;
        this.warnings = java.util.List.of();
        this.levels = null;
    }

    private Machine(Machine m, double[][] gByQ, java.util.List<String> warnings, MachineLevels levels) {
        this.p = m.p;
        this.freeP = m.freeP;
        this.sizes = m.sizes;
        this.g = m.g;
        this.l = m.l;
        this.gByQ = gByQ;
        this.warnings = java.util.List.copyOf(warnings);
        this.levels = levels;
    }

    /**
     * For engines: this machine with g measured on a section of {@code q} processes.
     *
     * @param q  1 ≤ q &lt; p
     * @param gq seconds per byte at each of {@link #messageSizes()}
     * @return a new machine
     */
    public Machine withSubsetG(int q, double[] gq) {
        if (q < 1 || q >= p || gq.length != sizes.length) {
            throw new IllegalArgumentException("Machine.withSubsetG(q=" + q + ", " + gq.length + " values): need 1 <= q < "
                    + p + " and " + sizes.length + " values");
        }
        double[][] rows = gByQ == null ? new double[p][] : gByQ.clone();
        rows[q] = gq.clone();
        return new Machine(this, rows, warnings, levels);
    }

    /**
     * For engines: this machine with a warning about its figures (a fit that failed its checks).
     *
     * @param warning what is unreliable
     * @return a new machine
     */
    public Machine withWarning(String warning) {
        java.util.List<String> w = new java.util.ArrayList<>(warnings);
        w.add(java.util.Objects.requireNonNull(warning, "warning"));
        return new Machine(this, gByQ, w, levels);
    }

    /**
     * For engines: this machine with its node structure and the figures of its two levels.
     *
     * @param levels the levels; {@code levels.p()} must be {@link #p()}
     * @return a new machine
     * @throws IllegalArgumentException if the levels' processes are not this machine's
     */
    public Machine withLevels(MachineLevels levels) {
        java.util.Objects.requireNonNull(levels, "Machine.withLevels: levels");
        if (levels.p() != p) {
            throw new IllegalArgumentException("Machine.withLevels: the levels hold " + levels.p() + " processes, the machine " + p);
        }
        return new Machine(this, gByQ, warnings, levels);
    }

    /**
     * The node structure and the figures of each level, when the engine has two levels (see the
     * class comment and {@link MachineLevels}); every process of a context gets the same. O(1).
     *
     * @return the levels, or empty when the engine reports none (one level: threads of one JVM,
     *         or one process per machine)
     */
    public java.util.Optional<MachineLevels> levels() { return java.util.Optional.ofNullable(levels); }

    /** @return what the engine found unreliable in these figures; empty when every fit passed its checks */
    public java.util.List<String> warnings() { return warnings; }

    /** @return the number of processes of the probing context (the machine size at the root) */
    public int p() { return p; }

    /**
     * @return how many processes an {@code exec} from the probing context can start, ≥ 0 (0 when
     *         the engine has no free processor to give)
     */
    public int freeP() { return freeP; }

    /** @return the message sizes at which g and l were measured (a copy) */
    public long[] messageSizes() { return sizes.clone(); }

    /**
     * @param minMsgSize the size in bytes of the messages of the h-relation (≥ 0)
     * @return the measured cost of communicating one byte in a full h-relation, in seconds
     */
    public double g(long minMsgSize) { return interpolate(g, minMsgSize); }

    /**
     * @param minMsgSize the size in bytes of the messages of the h-relation (≥ 0)
     * @return the measured fixed cost of a superstep, in seconds
     */
    public double l(long minMsgSize) { return interpolate(l, minMsgSize); }

    /**
     * g when only {@code q} processes of the context communicate (see the class comment: measured
     * for q where the engine measured a q-process section, else the p-process upper bound).
     *
     * @param q          communicating processes, 1 ≤ q ≤ {@link #p()}
     * @param minMsgSize the size in bytes of the messages
     * @return seconds per byte
     * @throws IllegalArgumentException if q is out of range
     */
    public double g(int q, long minMsgSize) {
        checkQ("g", q);
        return interpolate(q < p && gByQ != null && gByQ[q] != null ? gByQ[q] : g, minMsgSize);
    }

    /**
     * l when only {@code q} processes of the context communicate: l(minMsgSize), since every sync
     * involves all p processes (derived, see the class comment).
     *
     * @param q          communicating processes, 1 ≤ q ≤ {@link #p()}
     * @param minMsgSize the size in bytes of the messages
     * @return seconds
     * @throws IllegalArgumentException if q is out of range
     */
    public double l(int q, long minMsgSize) {
        checkQ("l", q);
        return interpolate(l, minMsgSize);
    }

    private void checkQ(String call, int q) {
        if (q < 1 || q > p) throw new IllegalArgumentException("Machine." + call + "(q=" + q + ", ...): q not in [1, " + p + "]");
    }

    /**
     * @param h          bytes sent or received by the busiest process
     * @param minMsgSize the size of its messages
     * @return the predicted time of the superstep, {@code l + g·h}, in seconds
     */
    public double superstepSeconds(long h, long minMsgSize) {
        return l(minMsgSize) + g(minMsgSize) * h;
    }

    private double interpolate(double[] values, long size) {
        if (size <= sizes[0]) return values[0];
        int last = sizes.length - 1;
        if (size >= sizes[last]) return values[last];
        int i = Arrays.binarySearch(sizes, size);
        if (i >= 0) return values[i];
        int hi = -i - 1, lo = hi - 1;
        double t = (Math.log(size) - Math.log(sizes[lo])) / (Math.log(sizes[hi]) - Math.log(sizes[lo]));
        return values[lo] + t * (values[hi] - values[lo]);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("Machine[p=").append(p).append(", freeP=").append(freeP);
        for (int i = 0; i < sizes.length; i++) {
            b.append(String.format(", %d B: g=%.3g s/B l=%.3g s", sizes[i], g[i], l[i]));
        }
        if (!warnings.isEmpty()) b.append(", unreliable: ").append(warnings);
        if (levels != null) b.append(", ").append(levels);
        return b.append(']').toString();
    }
}
