package org.lpf4j.bench.programs;

import java.util.Arrays;

/**
 * The measurement of one {@link ProgramCase} over the process counts: median seconds of the lpf4j
 * program and of its peer at each p ({@link Double#NaN} where not measured), and process 0's check
 * summary of the lpf4j program at each p.
 *
 * @param name      the program
 * @param size      its size
 * @param peerName  the peer
 * @param procs     the process counts (the peer's thread counts)
 * @param lpf       median seconds of one lpf4j run per p
 * @param peer      median seconds of one peer run per p
 * @param summaries the check summary per p
 */
public record ProgramResult(String name, String size, String peerName, int[] procs, double[] lpf, double[] peer,
                            String[] summaries) {

    /** Copies the arrays. */
    public ProgramResult {
        procs = procs.clone();
        lpf = lpf.clone();
        peer = peer.clone();
        summaries = summaries.clone();
    }

    @Override public int[] procs() { return procs.clone(); }
    @Override public double[] lpf() { return lpf.clone(); }
    @Override public double[] peer() { return peer.clone(); }
    @Override public String[] summaries() { return summaries.clone(); }

    /**
     * @param seconds a time per p
     * @return the speed-up over the p = 1 column per p (NaN without a p = 1 column)
     */
    public double[] speedUp(double[] seconds) {
        double base = Double.NaN;
        for (int c = 0; c < procs.length; c++) if (procs[c] == 1) base = seconds[c];
        double[] s = new double[procs.length];
        for (int c = 0; c < procs.length; c++) s[c] = base / seconds[c];
        return s;
    }

    /** @return lpf4j time / peer time per p (below 1: lpf4j is faster) */
    public double[] ratio() {
        double[] r = new double[procs.length];
        for (int c = 0; c < procs.length; c++) r[c] = lpf[c] / peer[c];
        return r;
    }

    /**
     * @param samples measured values (not modified), at least one
     * @return their median (mean of the middle two for an even count)
     */
    public static double median(double[] samples) {
        double[] s = samples.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }
}
