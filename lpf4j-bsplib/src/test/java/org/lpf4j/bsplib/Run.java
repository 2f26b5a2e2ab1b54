package org.lpf4j.bsplib;

import org.lpf4j.Lpf;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Test helpers: run a BSPlib program on exactly p processes of the selected engine. */
final class Run {
    private Run() {}

    /**
     * The process counts every multi-process test runs with (non-powers of two included), or those
     * the system property {@code lpf.test.procs} lists (comma-separated: a machine of fewer slots).
     */
    static final int[] PROCS = System.getProperty("lpf.test.procs", "").isBlank() ? new int[] {1, 2, 3, 4, 5, 8}
            : java.util.Arrays.stream(System.getProperty("lpf.test.procs").strip().split("\\s*,\\s*")).mapToInt(Integer::parseInt).toArray();

    /** Process counts of at least two, for tests about what crosses processes. */
    static final int[] MULTI = java.util.Arrays.stream(PROCS).filter(p -> p >= 2).toArray();

    /** Runs {@code program} on exactly {@code p} processes, each with its own begun and ended Bsplib. */
    static void bsp(int p, BspProgram program) {
        Lpf.root().exec(p, ctx -> {
            assertEquals(p, ctx.nprocs(), "the machine must offer p processes");
            try (Bsplib bsp = Bsplib.begin(ctx)) {
                program.run(bsp);
            }
        });
    }

    /** @return a fresh native area of {@code longs} longs (zeroed) */
    static java.lang.foreign.MemorySegment longs(int longs) {
        return java.lang.foreign.Arena.ofAuto().allocate(8L * Math.max(longs, 0), 8);
    }

    /** @return a heap segment holding {@code v} */
    static java.lang.foreign.MemorySegment of(long... v) {
        return java.lang.foreign.MemorySegment.ofArray(v);
    }
}
