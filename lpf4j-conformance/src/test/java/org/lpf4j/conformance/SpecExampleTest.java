package org.lpf4j.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Args;
import org.lpf4j.Lpf;
import org.lpf4j.examples.HalfProcessors;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The LPF specification's own example: every process puts pid·4 into its place of pid 0's output. */
@Timeout(60)
class SpecExampleTest {

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void everyProcessPutsFourTimesItsPidIntoTheOutputOfPidZero(String engine, int p) {
        MemorySegment x = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, p);
        x.fill((byte) 0x7f);
        Matrix.exec(engine, p, HalfProcessors::spmd, Args.of(MemorySegment.NULL, x));
        int[] expected = new int[p];
        for (int k = 0; k < p; k++) expected[k] = 4 * k;
        assertArrayEquals(expected, x.toArray(ValueLayout.JAVA_INT));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.lpf4j.conformance.Matrix#engines")
    void theExampleUsesHalfTheMachineRoundedUp(String engine) {
        int machine = Lpf.root(engine).probe().p();
        int[] x = HalfProcessors.run(Lpf.root(engine));
        assertEquals((machine + 1) / 2, x.length);
        for (int k = 0; k < x.length; k++) assertEquals(4 * k, x[k], "x[" + k + "]");
    }
}
