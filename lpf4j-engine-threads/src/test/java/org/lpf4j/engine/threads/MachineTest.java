package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Test;
import org.lpf4j.Machine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Machine interpolates g and l in log(size) and clamps outside; Probe's fit is least squares. */
class MachineTest {

    @Test
    void gAndLInterpolateInLogSizeAndClampOutside() {
        Machine m = new Machine(4, 2, new long[] {8, 512}, new double[] {2e-9, 1e-9}, new double[] {4e-6, 8e-6});
        assertEquals(2e-9, m.g(1), 0);
        assertEquals(2e-9, m.g(8), 0);
        assertEquals(1e-9, m.g(1 << 20), 0);
        assertEquals(1.5e-9, m.g(64), 1e-18, "64 is halfway between 8 and 512 in log scale");
        assertEquals(6e-6, m.l(64), 1e-15);
        assertEquals(8e-6 + 1e-9 * 1000, m.superstepSeconds(1000, 4096), 1e-15);
        assertEquals(4, m.p());
        assertEquals(2, m.freeP());
        assertArrayEquals(new long[] {8, 512}, m.messageSizes());
    }

    @Test
    void inconsistentMachinesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Machine(0, 1, new long[] {8}, new double[] {1}, new double[] {1}));
        assertThrows(IllegalArgumentException.class, () -> new Machine(1, 1, new long[] {8, 8}, new double[] {1, 1}, new double[] {1, 1}));
        assertThrows(IllegalArgumentException.class, () -> new Machine(1, 1, new long[] {8}, new double[] {1, 2}, new double[] {1}));
        assertThrows(IllegalArgumentException.class, () -> new Machine(1, -1, new long[] {8}, new double[] {1}, new double[] {1}));
    }

    @Test
    void noFreeProcessorIsAValidReport() {
        assertEquals(0, new Machine(3, 0, new long[] {8}, new double[] {1}, new double[] {1}).freeP());
    }
}
