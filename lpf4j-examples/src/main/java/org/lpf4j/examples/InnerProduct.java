package org.lpf4j.examples;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * A distributed inner product {@code x·y} of two vectors of length n, block-distributed over the
 * processes: each process computes the partial sum of its block (one superstep of local work),
 * puts it to every process (an all-gather of p doubles, h = p), and after the sync every process
 * adds the p partials in pid order, so all of them hold the same result. Process 0 checks it
 * against the sequential inner product and writes a report into its output segment.
 *
 * <p>The vectors are {@code x[i] = i mod 1000 - 500} and {@code y[i] = (7i) mod 311}: small
 * integers, so every partial and total sum (below 2<sup>53</sup> for n up to 10<sup>10</sup>) is
 * exact in a double and the check can demand equality.
 *
 * <p>Arguments ({@link Args#symbols()}): an optional first symbol, the vector length n (a decimal
 * string or a number, default {@value #DEFAULT_N}). The report is written as a NUL-terminated
 * UTF-8 string ({@link MemorySegment#setString}) into process 0's output segment when that is
 * large enough, which is how {@code lpf run} shows it.
 *
 * <p>Cost: O(n/p) local work, one h-relation with h = p doubles, three supersteps (capacities,
 * registration, the all-gather).
 */
public final class InnerProduct implements Spmd {
    private static final long serialVersionUID = 1L;

    /** The vector length when no symbol gives one. */
    public static final long DEFAULT_N = 1_000_000L;

    /** Creates the SPMD program; it keeps no state between runs. */
    public InnerProduct() {}

    /** @return {@code x[i]} of the example's first vector */
    static double x(long i) { return (double) (i % 1000 - 500); }

    /** @return {@code y[i]} of the example's second vector */
    static double y(long i) { return (double) ((7 * i) % 311); }

    /**
     * The sequential reference, O(n).
     *
     * @param n the vector length, ≥ 0
     * @return {@code x·y}
     */
    public static double sequential(long n) {
        double sum = 0;
        for (long i = 0; i < n; i++) sum += x(i) * y(i);
        return sum;
    }

    /**
     * @param symbols the symbols of a section
     * @return the vector length they name, or {@link #DEFAULT_N}
     * @throws IllegalArgumentException if the first symbol is not a non-negative integer
     */
    static long lengthFrom(List<Object> symbols) {
        if (symbols.isEmpty()) return DEFAULT_N;
        Object s = symbols.get(0);
        long n;
        try {
            n = s instanceof Number num ? num.longValue() : Long.parseLong(String.valueOf(s).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("InnerProduct: the vector length must be an integer, got '" + s + "'");
        }
        if (n < 0) throw new IllegalArgumentException("InnerProduct: the vector length must be >= 0, got " + n);
        return n;
    }

    @Override
    public void run(Context ctx) {
        long n = lengthFrom(ctx.args().symbols());
        double result = innerProduct(ctx, n);
        if (ctx.pid() == 0) {
            double expected = sequential(n);
            if (result != expected) {
                throw new IllegalStateException("InnerProduct: distributed result " + result + " at p="
                        + ctx.nprocs() + " differs from the sequential " + expected);
            }
            report(ctx.args().output(), String.format(
                    "inner product of two vectors of length %d on %d processes: %.1f (sequential check: equal)%n",
                    n, ctx.nprocs(), result));
        }
    }

    /**
     * The SPMD part: every process calls it with the same n and gets the same result.
     *
     * @param ctx this process's context (fresh: the call reserves what it needs)
     * @param n   the vector length
     * @return {@code x·y}, identical on every process
     */
    public static double innerProduct(Context ctx, long n) {
        int pid = ctx.pid(), p = ctx.nprocs();
        long lo = n * pid / p, hi = n * (pid + 1) / p;
        double partial = 0;
        for (long i = lo; i < hi; i++) partial += x(i) * y(i);

        try (Arena arena = Arena.ofShared()) {
            MemorySegment mine = arena.allocate(ValueLayout.JAVA_DOUBLE);
            MemorySegment partials = arena.allocate(ValueLayout.JAVA_DOUBLE, p);
            mine.set(ValueLayout.JAVA_DOUBLE, 0, partial);
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(p);
            ctx.sync();
            Memslot mineSlot = ctx.registerLocal(mine);
            Memslot partialsSlot = ctx.registerGlobal(partials);
            ctx.sync();
            for (int q = 0; q < p; q++) {
                ctx.put(mineSlot, 0, q, partialsSlot, (long) pid * Double.BYTES, Double.BYTES);
            }
            ctx.sync();
            double sum = 0;
            for (int q = 0; q < p; q++) sum += partials.getAtIndex(ValueLayout.JAVA_DOUBLE, q);
            ctx.deregister(partialsSlot);
            ctx.deregister(mineSlot);
            return sum;
        }
    }

    /**
     * Writes {@code text} as a NUL-terminated UTF-8 string into {@code output} if it fits.
     *
     * @param output process 0's output segment (may be {@link MemorySegment#NULL})
     * @param text   the report
     */
    static void report(MemorySegment output, String text) {
        byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (output.byteSize() > bytes.length) output.setString(0, text);
    }

    /**
     * Runs the example on the root context's machine and prints its report.
     *
     * @param args optional: the number of processes, then the vector length
     */
    public static void main(String[] args) {
        int p = args.length > 0 ? Integer.parseInt(args[0]) : Runtime.getRuntime().availableProcessors();
        MemorySegment output = Arena.ofAuto().allocate(1024);
        Object[] symbols = args.length > 1 ? new Object[] {args[1]} : new Object[0];
        Lpf.root().exec(p, new InnerProduct(), Args.of(MemorySegment.NULL, output, symbols));
        System.out.print(output.getString(0));
    }
}
