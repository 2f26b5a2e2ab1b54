package org.lpf4j.examples.bsplib;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lpf4j.Args;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The BSPlib example programs (each checks itself against a sequential computation) at small sizes. */
@Timeout(120)
class BsplibExamplesTest {
    /** The process counts every multi-process test runs with (non-powers of two included). */
    static final int[] PROCS = {1, 2, 3, 4, 5, 8};

    static String run(int p, Spmd program, Object... symbols) {
        MemorySegment out = Arena.ofAuto().allocate(4096);
        Lpf.root().exec(p, program, Args.of(MemorySegment.NULL, out, symbols));
        return out.getString(0);
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void sumOfPids(int p) {
        String r = run(p, new SumOfPids());
        assertTrue(r.contains("sum of the pids of " + p + " processes: " + p * (p - 1) / 2), r);
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void reverse(int p) {
        for (int n : new int[] {1, 7, 1000}) {
            String r = run(p, new Reverse(), n);
            assertTrue(r.contains("reversed " + n + " longs"), r);
        }
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void innerProduct(int p) {
        String r = run(p, new InnerProduct(), 10_007);
        assertTrue(r.contains("sequential check: equal"), r);
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void luDecomposition(int p) {
        String r = run(p, new LuDecomposition(), 37);
        assertTrue(r.contains("equal the sequential result"), r);
    }
}
