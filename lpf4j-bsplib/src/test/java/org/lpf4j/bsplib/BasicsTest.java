package org.lpf4j.bsplib;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** nprocs, pid, time, sync alone, and the classic small programs: sum of pids, a put array, reversal. */
@Timeout(60)
class BasicsTest {
    static final int[] PROCS = Run.PROCS;

    @ParameterizedTest
    @FieldSource("PROCS")
    void nprocsPidAndTime(int p) {
        Run.bsp(p, bsp -> {
            assertEquals(p, bsp.nprocs());
            assertTrue(bsp.pid() >= 0 && bsp.pid() < p);
            double t0 = bsp.time();
            assertTrue(t0 >= 0, "time starts at begin: " + t0);
            for (int i = 0; i < 3; i++) bsp.sync(); // empty supersteps
            assertTrue(bsp.time() >= t0, "time does not go back");
            assertEquals(0, bsp.qsize());
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void sumOfPidsGatheredAtEveryProcess(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment all = Run.longs(p);
            bsp.pushReg(all);
            bsp.sync();
            MemorySegment mine = Run.of(bsp.pid());
            for (int q = 0; q < p; q++) bsp.put(q, mine, all, 8L * bsp.pid(), 8);
            bsp.sync();
            long sum = 0;
            for (int q = 0; q < p; q++) sum += all.getAtIndex(JAVA_LONG, q);
            assertEquals((long) p * (p - 1) / 2, sum);
            bsp.popReg(all);
            bsp.sync();
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void putArrayOfIntsBlockwise(int p) {
        Run.bsp(p, bsp -> {
            int n = 5, s = bsp.pid();
            int[] local = new int[n * p];
            MemorySegment dst = MemorySegment.ofArray(local);
            bsp.pushReg(dst);
            bsp.sync();
            int[] src = new int[n];
            for (int i = 0; i < n; i++) src[i] = 100 * s + i;
            for (int q = 0; q < p; q++) bsp.put(q, MemorySegment.ofArray(src), MemorySegment.ofArray(local), 4L * n * s, 4L * n);
            bsp.sync();
            for (int q = 0; q < p; q++) for (int i = 0; i < n; i++) assertEquals(100 * q + i, local[n * q + i]);
            bsp.popReg(dst);
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void reverseAnArrayAcrossProcesses(int p) {
        Run.bsp(p, bsp -> {
            int b = 3, s = bsp.pid(), n = b * p;
            MemorySegment x = Run.longs(b);
            for (int i = 0; i < b; i++) x.setAtIndex(JAVA_LONG, i, (long) s * b + i); // global index
            bsp.pushReg(x);
            bsp.sync();
            for (int i = 0; i < b; i++) {
                long g = (long) s * b + i, r = n - 1 - g;
                bsp.put((int) (r / b), x.asSlice(8L * i, 8), x, 8 * (r % b), 8); // src read now: buffered
            }
            bsp.sync();
            for (int i = 0; i < b; i++) assertEquals(n - 1 - ((long) s * b + i), x.getAtIndex(JAVA_LONG, i));
            bsp.popReg(x);
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void manySupersteps(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment c = MemorySegment.ofArray(new int[1]);
            bsp.pushReg(c);
            bsp.sync();
            for (int step = 0; step < 50; step++) {
                MemorySegment v = MemorySegment.ofArray(new int[] {step * p + bsp.pid()});
                bsp.put((bsp.pid() + 1) % p, v, c, 0, 4);
                bsp.sync();
                assertEquals(step * p + (bsp.pid() + p - 1) % p, c.get(JAVA_INT, 0));
            }
        });
    }

    /** bsp_nprocs() before bsp_begin: the machine size, which is what a program asking for every process gets. */
    @org.junit.jupiter.api.Test
    void machineSizeBeforeBeginIsWhatTheWholeMachineGives() {
        int size = Bsplib.machineSize();
        assertTrue(size >= 1, "machine size " + size);
        assertEquals(org.lpf4j.Lpf.engine().machineSize(), size);
        Bsplib.run(org.lpf4j.Lpf.MAX_P, bsp -> assertEquals(size, bsp.nprocs(), "Bsplib.run(Lpf.MAX_P, ...) runs machineSize() processes"));
        Bsplib.run(size, bsp -> assertEquals(size, bsp.nprocs()));
    }
}
