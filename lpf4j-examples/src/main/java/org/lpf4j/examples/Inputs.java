package org.lpf4j.examples;

import java.util.List;

/**
 * Deterministic inputs of the examples (a function of a seed and a global index, so that any
 * process, the sequential check and a benchmark's peer generate the same data without
 * communication), and parsing of the examples' size symbols.
 */
public final class Inputs {
    private Inputs() {}

    /**
     * The SplitMix64 finaliser: a bijection of the longs with good avalanche, used as a
     * counter-based random generator. O(1).
     *
     * @param z any value
     * @return the mixed value
     */
    public static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /**
     * @param seed the input's seed
     * @param i    a global index
     * @return the {@code i}-th random long of the stream {@code seed}
     */
    public static long randomLong(long seed, long i) {
        return mix(seed * 0x9e3779b97f4a7c15L + i + 0x632be59bd9b4e019L);
    }

    /**
     * @param seed the input's seed
     * @param i    a global index
     * @return a uniform double in [0, 1) of the stream {@code seed}
     */
    public static double uniform(long seed, long i) {
        return (randomLong(seed, i) >>> 11) * 0x1.0p-53;
    }

    /**
     * Reads the {@code index}-th symbol as a non-negative integer.
     *
     * @param symbols  the section's symbols ({@code lpf run} passes the program's arguments)
     * @param index    which symbol
     * @param dflt     the value when there is no such symbol
     * @param program  the program's name, for the message
     * @param what     what the symbol means, for the message
     * @return the value
     * @throws IllegalArgumentException if the symbol is not a non-negative integer
     */
    public static long symbol(List<Object> symbols, int index, long dflt, String program, String what) {
        if (symbols.size() <= index) return dflt;
        Object s = symbols.get(index);
        long v;
        try {
            v = s instanceof Number num ? num.longValue() : Long.parseLong(String.valueOf(s).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(program + ": the " + what + " must be an integer, got '" + s + "'");
        }
        if (v < 0) throw new IllegalArgumentException(program + ": the " + what + " must be >= 0, got " + v);
        return v;
    }

    /**
     * Writes {@code text} as a NUL-terminated UTF-8 string into process 0's output segment if it fits
     * (how {@code lpf run} shows a program's report).
     *
     * @param output the output segment (may be {@link java.lang.foreign.MemorySegment#NULL})
     * @param text   the report
     */
    static void report(java.lang.foreign.MemorySegment output, String text) {
        InnerProduct.report(output, text);
    }

    /**
     * Runs a prepared program once, checks it and reports the check's summary from process 0.
     *
     * @param ctx this process's context
     * @param run the prepared program (closed here)
     */
    static void runOnce(org.lpf4j.Context ctx, BspRun run) {
        try (run) {
            run.run();
            String summary = run.check();
            if (ctx.pid() == 0) report(ctx.args().output(), summary + System.lineSeparator());
        }
    }
}
