package org.lpf4j.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Global registration is collective and active after the next sync; slots agree on all pids. */
@Timeout(60)
class RegistrationTest {

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void globalSlotsAgreeWhateverLocalRegistrationsEachPidMakes(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            int globals = 3;
            ctx.resizeMemoryRegister(globals * (1 + (s + 1) / 2) + 1);
            ctx.resizeMessageQueue(globals);
            ctx.sync();
            List<Memslot> locals = new ArrayList<>();
            MemorySegment[] areas = new MemorySegment[globals];
            Memslot[] slots = new Memslot[globals];
            for (int g = 0; g < globals; g++) {
                for (int k = 0; k < s; k += 2) locals.add(ctx.registerLocal(Arena.ofAuto().allocate(16))); // pid-dependent
                areas[g] = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, p);
                slots[g] = ctx.registerGlobal(areas[g]);
            }
            MemorySegment value = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, globals);
            Memslot valueSlot = ctx.registerLocal(value);
            ctx.sync();
            for (int g = 0; g < globals; g++) {
                value.setAtIndex(ValueLayout.JAVA_INT, g, 100 * g + s);
                ctx.put(valueSlot, 4L * g, (s + g) % p, slots[g], 4L * s, 4);
            }
            ctx.sync();
            for (int g = 0; g < globals; g++) {
                int from = ((s - g) % p + p) % p;
                assertEquals(100 * g + from, areas[g].getAtIndex(ValueLayout.JAVA_INT, from),
                        "pid " + s + " global " + g + " entry of pid " + from);
            }
            for (Memslot l : locals) ctx.deregister(l);
            ctx.deregister(valueSlot);
            for (int g = globals - 1; g >= 0; g--) ctx.deregister(slots[g]);
        });
    }

    @ExpectsEngineRefusal
    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void aGlobalSlotIsUsableOnlyAfterTheNextSync(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            MemorySegment a = Arena.ofAuto().allocate(8);
            Memslot local = ctx.registerLocal(Arena.ofAuto().allocate(8));
            Memslot global = ctx.registerGlobal(a);
            var e = assertThrows(IllegalArgumentException.class,
                    () -> ctx.put(local, 0, 0, global, 0, 8));
            assertTrue(e.getMessage().contains("after the next sync"), e.getMessage());
            ctx.sync();
            ctx.put(local, 0, (ctx.pid() + 1) % p, global, 0, 8);
            ctx.sync();
            ctx.deregister(global);
            ctx.deregister(local);
        });
    }

    @ExpectsEngineRefusal
    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void deregisteredSlotsAreRejectedAndTheirEntriesReused(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            Memslot firstSrc = ctx.registerLocal(Arena.ofAuto().allocate(8));
            MemorySegment first = Arena.ofAuto().allocate(8);
            Memslot old = ctx.registerGlobal(first);
            ctx.sync();
            ctx.deregister(old);
            var e = assertThrows(IllegalArgumentException.class, () -> ctx.put(firstSrc, 0, 0, old, 0, 8));
            assertTrue(e.getMessage().contains("deregistered"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ctx.deregister(old));
            // The register holds 2: the freed entry takes a new registration, many times over.
            Memslot src = firstSrc;
            for (int round = 0; round < 5; round++) {
                MemorySegment area = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG, 1);
                Memslot slot = ctx.registerGlobal(area);
                ctx.sync();
                MemorySegment v = Arena.ofAuto().allocate(8);
                ctx.deregister(src);
                src = ctx.registerLocal(v);
                v.set(ValueLayout.JAVA_LONG, 0, round * 10L + s);
                ctx.put(src, 0, (s + 1) % p, slot, 0, 8);
                ctx.sync();
                assertEquals(round * 10L + (s + p - 1) % p, area.get(ValueLayout.JAVA_LONG, 0));
                ctx.deregister(slot);
            }
            ctx.deregister(src);
        });
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void zeroSizeAndNullRegistrationsAreValid(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            ctx.resizeMemoryRegister(2);
            ctx.sync();
            Memslot a = ctx.registerGlobal(MemorySegment.NULL);
            Memslot b = ctx.registerLocal(Arena.ofAuto().allocate(0));
            ctx.sync();
            ctx.deregister(b);
            ctx.deregister(a);
        });
    }
}
