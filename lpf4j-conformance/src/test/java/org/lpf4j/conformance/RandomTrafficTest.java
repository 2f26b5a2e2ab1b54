package org.lpf4j.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * Random puts and gets of random sizes between random pids, over many supersteps, against a
 * sequential model of all processes' memory. Every process draws the same global plan from a
 * shared seed, executes its own requests, and checks its memory against the model. Requests of
 * one superstep write disjoint destination cells (each cell is claimed at most once per
 * superstep) and never read a cell written in the same superstep, so the result is determined.
 * Sizes run from 1 byte to a whole cell (1 KiB), so small puts (which an engine may buffer) and
 * large ones mix; in some supersteps every process resizes its message queue halfway through
 * queuing its requests (growing it while requests are queued, or shrinking it). Each process holds
 * the model of all p processes' memory, so above p = 64 a process has fewer cells (16 at p = 256):
 * the model of a JVM that runs many processes as threads stays within a small heap.
 */
@Timeout(120)
class RandomTrafficTest {
    private static final int MAX_CELLS = 64;
    private static final int CELL = 1024;
    private static final int STEPS = 40;
    private static final int MAX_REQUESTS = 24;

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void randomRequestsMatchASequentialModel(String engine, int p) {
        long seed = 0x5eedL * 31 + p;
        int cells = cellsPerProcess(p);
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            byte[][] model = new byte[p][cells * CELL];
            Random init = new Random(seed);
            for (byte[] m : model) init.nextBytes(m);
            MemorySegment mem = Arena.ofAuto().allocate((long) cells * CELL);
            MemorySegment.copy(MemorySegment.ofArray(model[s]), 0, mem, 0, mem.byteSize());
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(MAX_REQUESTS);
            ctx.sync();
            Memslot slot = ctx.registerGlobal(mem);
            ctx.sync();
            Random plan = new Random(seed ^ 0xabcdefL);
            for (int step = 0; step < STEPS; step++) {
                boolean[][] written = new boolean[p][cells];
                boolean[][] read = new boolean[p][cells];
                int[] issued = new int[p];
                byte[][] next = model.clone(); // a process's memory is copied when first written in this superstep
                int requests = plan.nextInt(MAX_REQUESTS * p / 2 + 1);
                int resizeAt = plan.nextInt(3) == 0 ? plan.nextInt(requests + 1) : -1;
                long newCapacity = MAX_REQUESTS + plan.nextInt(4) * plan.nextInt(200);
                for (int r = 0; r < requests; r++) {
                    if (r == resizeAt) ctx.resizeMessageQueue(newCapacity);
                    int origin = plan.nextInt(p);
                    int other = plan.nextInt(p);
                    boolean isPut = plan.nextBoolean();
                    int srcPid = isPut ? origin : other, dstPid = isPut ? other : origin;
                    int srcCell = plan.nextInt(cells), dstCell = plan.nextInt(cells);
                    int len = plan.nextBoolean() ? 1 + plan.nextInt(64) : 1 + plan.nextInt(CELL);
                    int srcOff = plan.nextInt(CELL - len + 1), dstOff = plan.nextInt(CELL - len + 1);
                    if (issued[origin] == MAX_REQUESTS || written[dstPid][dstCell] || read[dstPid][dstCell]
                            || written[srcPid][srcCell]) continue;
                    if (next[dstPid] == model[dstPid]) next[dstPid] = model[dstPid].clone();
                    written[dstPid][dstCell] = true;
                    read[srcPid][srcCell] = true;
                    issued[origin]++;
                    System.arraycopy(model[srcPid], srcCell * CELL + srcOff, next[dstPid], dstCell * CELL + dstOff, len);
                    if (origin == s) {
                        long so = (long) srcCell * CELL + srcOff, d = (long) dstCell * CELL + dstOff;
                        if (isPut) ctx.put(slot, so, dstPid, slot, d, len);
                        else ctx.get(srcPid, slot, so, slot, d, len);
                    }
                }
                ctx.sync();
                model = next;
                assertArrayEquals(model[s], mem.toArray(ValueLayout.JAVA_BYTE), "pid " + s + " after superstep " + step);
            }
            ctx.deregister(slot);
        });
    }

    /** @return the cells of each process at {@code p}: 64 up to p = 64, then fewer, down to 8 */
    static int cellsPerProcess(int p) {
        return Math.max(8, Math.min(MAX_CELLS, 4096 / p));
    }
}
