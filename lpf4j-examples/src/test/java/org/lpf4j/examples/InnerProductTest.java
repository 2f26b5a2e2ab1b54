package org.lpf4j.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InnerProductTest {

    /** n values around the block boundaries: empty, fewer elements than processes, not divisible. */
    private static final long[] LENGTHS = {0, 1, 3, 7, 1000, 12_347};

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void everyProcessGetsTheSequentialResult(int p) {
        for (long n : LENGTHS) {
            AtomicLongArray bits = new AtomicLongArray(p);
            Lpf.root().exec(p, ctx -> {
                assertEquals(p, ctx.nprocs());
                bits.set(ctx.pid(), Double.doubleToLongBits(InnerProduct.innerProduct(ctx, n)));
            });
            double expected = InnerProduct.sequential(n);
            for (int q = 0; q < p; q++) {
                assertEquals(expected, Double.longBitsToDouble(bits.get(q)), "n=" + n + " pid " + q);
            }
        }
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void runWritesTheCheckedReportToOutput(int p) {
        MemorySegment output = Arena.ofAuto().allocate(512);
        Lpf.root().exec(p, new InnerProduct(), Args.of(MemorySegment.NULL, output, "5000"));
        String report = output.getString(0);
        assertTrue(report.startsWith("inner product of two vectors of length 5000 on " + p + " processes: "
                + String.format("%.1f", InnerProduct.sequential(5000))), report);
        assertTrue(report.contains("sequential check: equal"), report);
    }

    @Test
    void sequentialReferenceIsTheDefinition() {
        assertEquals(0.0, InnerProduct.sequential(0));
        // x = -500, -499, -498 ; y = 0, 7, 14
        assertEquals(-499.0 * 7 - 498.0 * 14, InnerProduct.sequential(3));
    }

    @Test
    void badLengthSymbolFailsTheSectionWithAClearCause() {
        FatalException e = assertThrows(FatalException.class, () -> Lpf.root().exec(2, new InnerProduct(),
                Args.of(MemorySegment.NULL, MemorySegment.NULL, "ten")));
        IllegalArgumentException cause = assertInstanceOf(IllegalArgumentException.class, e.getCause());
        assertTrue(cause.getMessage().contains("'ten'"), cause.getMessage());
        assertThrows(IllegalArgumentException.class, () -> InnerProduct.lengthFrom(List.of(-1L)));
        assertEquals(InnerProduct.DEFAULT_N, InnerProduct.lengthFrom(List.of()));
    }
}
