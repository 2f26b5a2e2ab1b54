package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many processes on few cores: thousands of supersteps alternating buffered puts, unbuffered
 * puts and gets must stay correct and finish quickly (spin-then-park), and no thread is left.
 */
@Timeout(60)
class OversubscriptionTest {

    @Test
    void manySuperstepsWithMoreProcessesThanCores() {
        int p = 8;
        int steps = 3000;
        long before = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("lpf-threads")).count();
        long t0 = System.nanoTime();
        Lpf.root("threads").exec(p, ctx -> {
            int s = ctx.pid();
            MemorySegment mem = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG, 1024);
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot slot = ctx.registerGlobal(mem);
            ctx.sync();
            for (int step = 0; step < steps; step++) {
                // Words [0, 512) are sent, words [512, 1024) received: no request reads what another writes.
                for (int w = 0; w < 512; w += 64) mem.setAtIndex(ValueLayout.JAVA_LONG, w, step * 16L + s + w);
                int kind = step % 3;
                if (kind == 0) ctx.put(slot, 0, (s + 1) % p, slot, 4096, 8);             // buffered
                else if (kind == 1) ctx.put(slot, 0, (s + 1) % p, slot, 4096, 4096);     // unbuffered
                else ctx.get((s + p - 1) % p, slot, 0, slot, 4096, 4096);                // get
                ctx.sync();
                int from = (s + p - 1) % p;
                int words = kind == 0 ? 1 : 512;
                for (int w = 0; w < words; w += 64) {
                    assertEquals(step * 16L + from + w, mem.getAtIndex(ValueLayout.JAVA_LONG, 512 + w), "step " + step + " word " + w);
                }
            }
            ctx.deregister(slot);
        });
        double perStepMicros = (System.nanoTime() - t0) / 1e3 / steps;
        // A guard against waits that lose a scheduler quantum per process per superstep (8 x 4 ms), not a
        // benchmark: a loaded 2-core machine took 2.4 ms, so the bound leaves room for load.
        assertTrue(perStepMicros < 10_000, "a superstep of 8 processes on " + Runtime.getRuntime().availableProcessors()
                + " cores took " + perStepMicros + " µs");
        long after = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("lpf-threads")).count();
        assertEquals(before, after, "threads left behind");
    }
}
