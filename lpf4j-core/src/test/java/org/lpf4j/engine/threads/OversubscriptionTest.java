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
                mem.setAtIndex(ValueLayout.JAVA_LONG, 0, step * 16L + s);
                int kind = step % 3;
                if (kind == 0) ctx.put(slot, 0, (s + 1) % p, slot, 8, 8);               // buffered
                else if (kind == 1) ctx.put(slot, 0, (s + 1) % p, slot, 8, 4096);       // unbuffered
                else ctx.get((s + p - 1) % p, slot, 0, slot, 8, 8);                    // get
                ctx.sync();
                assertEquals(step * 16L + (s + p - 1) % p, mem.getAtIndex(ValueLayout.JAVA_LONG, 1), "step " + step);
            }
            ctx.deregister(slot);
        });
        double perStepMicros = (System.nanoTime() - t0) / 1e3 / steps;
        assertTrue(perStepMicros < 2000, "a superstep of 8 processes on " + Runtime.getRuntime().availableProcessors()
                + " cores took " + perStepMicros + " µs");
        long after = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("lpf-threads")).count();
        assertEquals(before, after, "threads left behind");
    }
}
