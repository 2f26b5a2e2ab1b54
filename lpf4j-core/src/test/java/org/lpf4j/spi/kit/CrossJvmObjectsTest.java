package org.lpf4j.spi.kit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where shipped objects find their classes: the program's loaders first, captured once. */
class CrossJvmObjectsTest {
    /** A loader that delegates everything and records what it was asked for. */
    static final class Recording extends ClassLoader {
        final List<String> asked = new ArrayList<>();

        Recording() { super(CrossJvmObjectsTest.class.getClassLoader()); }

        @Override
        protected synchronized Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            asked.add(name);
            return super.loadClass(name, resolve);
        }
    }

    record Payload(int value, IntUnaryOperator op) implements Serializable {}

    private static Object roundTrip(CrossJvmObjects objects, Object o) throws IOException, ClassNotFoundException {
        return objects.deserialize(CrossJvmObjects.serialize(o));
    }

    @Test
    void theContextLoaderOfTheStartingThreadIsAskedFirstAndKept() throws Exception {
        Recording program = new Recording();
        Thread t = Thread.currentThread();
        ClassLoader saved = t.getContextClassLoader();
        CrossJvmObjects objects;
        t.setContextClassLoader(program);
        try {
            objects = CrossJvmObjects.forCurrentThread();
        } finally {
            t.setContextClassLoader(saved);
        }
        assertSame(program, objects.loaders().getFirst());
        // Deserialized later on a thread whose context loader is another: the captured one still answers.
        Payload back = (Payload) roundTrip(objects, new Payload(3, (IntUnaryOperator & Serializable) x -> x * 7));
        assertEquals(21, back.op().applyAsInt(back.value()));
        assertTrue(program.asked.contains(Payload.class.getName()), () -> "asked: " + program.asked);
        assertTrue(program.asked.contains(CrossJvmObjectsTest.class.getName()), "the lambda's capturing class: " + program.asked);
    }

    @Test
    void aSectionsProgramLoaderComesBeforeTheContextLoader() {
        Object program = new Payload(1, null);
        List<ClassLoader> loaders = CrossJvmObjects.forSection(program).loaders();
        assertSame(Payload.class.getClassLoader(), loaders.getFirst());
        assertEquals(loaders.size(), loaders.stream().distinct().count(), "each loader once: " + loaders);
    }

    @Test
    void aCarrierIsLookedThroughToTheProgramItRuns() {
        Recording program = new Recording();
        Object inner = java.lang.reflect.Proxy.newProxyInstance(program, new Class<?>[] {Runnable.class}, (proxy, m, args) -> null);
        CrossJvmObjects.Carrier node = () -> inner; // an engine's per-node section carrying the program's function
        CrossJvmObjects.Carrier decorator = () -> node;
        assertSame(program, CrossJvmObjects.forSection(decorator).loaders().getFirst());
    }

    @Test
    void bytesInAMemorySegmentDeserializeToo() throws Exception {
        byte[] bytes = CrossJvmObjects.serialize(List.of("a", "b"));
        MemorySegment seg = MemorySegment.ofArray(new byte[bytes.length + 5]);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, seg, 5, bytes.length);
        assertEquals(List.of("a", "b"), CrossJvmObjects.forCurrentThread().deserialize(seg, 5, bytes.length));
    }
}
