package org.lpf4j.conformance;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Capacity;
import org.lpf4j.Memslot;
import org.lpf4j.spi.Parameters;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code lpf.capacity=grow}: registrations and requests beyond the reserved capacities grow the
 * register and the queue instead of failing, and every request is executed as usual. The
 * default, a clear refusal, is {@link CapacityTest}'s. In this JVM the parameter is set here for
 * the class; a multi-JVM job that runs this class sets {@code -Dlpf.capacity=grow} on every JVM.
 */
@Timeout(60)
class GrowingCapacityTest {
    @BeforeAll
    static void grow() { Parameters.set("lpf.capacity", "grow"); }

    @AfterAll
    static void fixed() { Parameters.clear("lpf.capacity"); }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void registrationsAndRequestsBeyondTheCapacityGrowItAndAllArrive(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid(), n = 5;
            Capacity.of(1, 1).reserve(ctx);
            MemorySegment dst = Arena.ofAuto().allocate(8L * n * p, 8), back = Arena.ofAuto().allocate(8L * n * p, 8);
            Memslot dstSlot = ctx.registerGlobal(dst);
            Memslot backSlot = ctx.registerLocal(back); // the register's second slot: it grows
            Memslot[] src = new Memslot[n];
            for (int i = 0; i < n; i++) {
                MemorySegment one = Arena.ofAuto().allocate(8, 8);
                one.set(ValueLayout.JAVA_LONG, 0, 1000L * s + i);
                src[i] = ctx.registerLocal(one);
            }
            ctx.sync();
            for (int q = 0; q < p; q++) for (int i = 0; i < n; i++) ctx.put(src[i], 0, q, dstSlot, 8L * (s * n + i), 8);
            ctx.sync(); // n·p puts in one superstep, with a queue of one entry reserved
            for (int q = 0; q < p; q++) {
                for (int i = 0; i < n; i++) assertEquals(1000L * q + i, dst.get(ValueLayout.JAVA_LONG, 8L * (q * n + i)), "put " + i + " of pid " + q);
            }
            for (int q = 0; q < p; q++) for (int i = 0; i < n; i++) ctx.get(q, dstSlot, 8L * (s * n + i), backSlot, 8L * (q * n + i), 8);
            ctx.sync();
            for (int q = 0; q < p; q++) {
                for (int i = 0; i < n; i++) assertEquals(1000L * s + i, back.get(ValueLayout.JAVA_LONG, 8L * (q * n + i)), "get " + i + " from pid " + q);
            }
            for (int i = n - 1; i >= 0; i--) ctx.deregister(src[i]);
            ctx.deregister(backSlot);
            ctx.deregister(dstSlot);
        });
    }
}
