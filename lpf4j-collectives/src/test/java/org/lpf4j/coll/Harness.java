package org.lpf4j.coll;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.fail;

/** Test helpers: SPMD runs, segments, deterministic random data and byte comparisons. */
final class Harness {
    private Harness() {}

    static final Algorithm[] VARIANTS = {Algorithm.DIRECT, Algorithm.TWO_PHASE, Algorithm.TREE};
    /** The process counts of the every-variant tests: 1 .. 8, or those the system property {@code lpf.test.procs} lists (the scale tests). */
    static final int[] PROCS = System.getProperty("lpf.test.procs", "").isBlank() ? new int[] {1, 2, 3, 4, 5, 6, 7, 8}
            : java.util.Arrays.stream(System.getProperty("lpf.test.procs").strip().split("\\s*,\\s*")).mapToInt(Integer::parseInt).toArray();

    /** Up to this many processes, the every-root tests take every pid as root. */
    static final int EVERY_ROOT_UP_TO = 16;

    /**
     * @return the roots an every-root test takes at {@code p}: every pid up to
     *         {@link #EVERY_ROOT_UP_TO}; above, the first two, the middle, the last and four
     *         others drawn with a seed of {@code p}, ascending. Every root of p = 256 made one
     *         section of thousands of supersteps (an hour on 2 cores, issue 41's scale runs); the
     *         places of a root that the algorithms treat apart are among these.
     */
    static int[] roots(int p) {
        if (p <= EVERY_ROOT_UP_TO) return java.util.stream.IntStream.range(0, p).toArray();
        java.util.TreeSet<Integer> r = new java.util.TreeSet<>(java.util.List.of(0, 1, p / 2, p - 1));
        SplittableRandom random = new SplittableRandom(p);
        while (r.size() < 8) r.add(random.nextInt(p));
        return r.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * @return those of {@code counts} that are at most the largest of {@link #PROCS}: a test's own
     *         process counts, cut to a machine of fewer slots that {@code lpf.test.procs} names
     */
    static int[] notAbove(int... counts) {
        int largest = java.util.Arrays.stream(PROCS).max().orElseThrow();
        return java.util.Arrays.stream(counts).filter(p -> p <= largest).toArray();
    }

    /**
     * @return those of {@code rows} (comma-separated values, the process count first) whose count is
     *         at most the largest of {@link #PROCS}, as a test's arguments (JUnit converts the values)
     */
    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> rowsNotAbove(String... rows) {
        int largest = java.util.Arrays.stream(PROCS).max().orElseThrow();
        return java.util.Arrays.stream(rows).map(r -> r.split(","))
                .filter(r -> Integer.parseInt(r[0].strip()) <= largest)
                .map(r -> org.junit.jupiter.params.provider.Arguments.of((Object[]) java.util.Arrays.stream(r).map(String::strip).toArray(String[]::new)));
    }

    /** Runs {@code spmd} on {@code p} processes of the default engine. */
    static void run(int p, Spmd spmd) {
        Lpf.root().exec(p, spmd);
    }

    /** Reserves room (then syncs): {@code regs} slots and {@code msgs} queue entries. */
    static void reserve(Context ctx, long regs, long msgs) {
        ctx.resizeMemoryRegister(regs);
        ctx.resizeMessageQueue(msgs);
        ctx.sync();
    }

    /** @return a zeroed heap segment (any thread may access it) */
    static MemorySegment segment(long bytes) {
        return MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
    }

    /** @return a seed from the parts of a test case */
    static long seed(long... parts) {
        long h = 0x9E3779B97F4A7C15L;
        for (long x : parts) h = (h ^ x) * 0xBF58476D1CE4E5B9L + 0x94D049BB133111EBL;
        return h;
    }

    /** Fills {@code [off, off+n)} of {@code seg} with the random bytes of {@code seed}. */
    static void fill(MemorySegment seg, long off, long n, long seed) {
        byte[] b = new byte[Math.toIntExact(n)];
        new SplittableRandom(seed).nextBytes(b);
        MemorySegment.copy(MemorySegment.ofArray(b), 0, seg, off, n);
    }

    /** @return {@code n} random bytes of {@code seed} as a segment */
    static MemorySegment bytes(long n, long seed) {
        MemorySegment s = segment(n);
        fill(s, 0, n, seed);
        return s;
    }

    /** Asserts that {@code actual[aOff, aOff+n)} equals {@code expected[eOff, eOff+n)}. */
    static void assertBytes(MemorySegment expected, long eOff, MemorySegment actual, long aOff, long n, String what) {
        long at = MemorySegment.mismatch(expected, eOff, eOff + n, actual, aOff, aOff + n);
        if (at >= 0) fail(what + ": first difference at byte " + at + " of " + n);
    }

    /** Asserts that {@code n} bytes of {@code actual} at {@code off} still hold the pattern of {@code seed}. */
    static void assertUntouched(MemorySegment actual, long off, long n, long seed, long patternOff, String what) {
        MemorySegment pattern = bytes(patternOff + n, seed);
        assertBytes(pattern, patternOff, actual, off, n, what + " must not be touched");
    }

    /** Asserts that {@code r} throws {@code type} with a message containing every fragment. */
    static <T extends Throwable> void assertRefused(Class<T> type, Runnable r, String... fragments) {
        try {
            r.run();
        } catch (Throwable t) {
            if (!type.isInstance(t)) fail("expected " + type.getSimpleName() + " but got " + t, t);
            for (String f : fragments) {
                if (t.getMessage() == null || !t.getMessage().contains(f)) {
                    fail("message \"" + t.getMessage() + "\" lacks \"" + f + "\"");
                }
            }
            return;
        }
        fail("expected " + type.getSimpleName() + " with " + String.join(", ", fragments));
    }
}
