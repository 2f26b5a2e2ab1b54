package org.lpf4j.spi.kit;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

/**
 * The one way a multi-JVM engine turns objects into bytes for another JVM of the same job and back:
 * SPMD functions and symbols at {@code exec}, the operators of combining puts, the exceptions a
 * failed process reports. Every engine that deserializes uses it, so classes resolve the same way
 * everywhere.
 *
 * <p><b>Where classes are found.</b> A program's classes may live in a class loader that is not
 * the one lpf4j was loaded by: {@code lpf run --class-path}, the Java source launcher, JShell, an
 * application server, a Spark executor. A plain {@link ObjectInputStream} resolves through the
 * nearest user class loader on the stack, which is the engine's, and fails with
 * {@link ClassNotFoundException} for such a program's lambda. An instance captures, when a section
 * starts, the class loaders that know the program, and tries in order:
 * <ol>
 *   <li>the loaders of the program's SPMD function's class given to {@link #forSection}, looking
 *       through {@link Carrier}s (a hybrid node's section, a decorator) to the program's own, and
 *       skipping lpf4j's own loader;</li>
 *   <li>the context class loader of the thread that started the section (what the launchers
 *       above set: the source launcher and {@code lpf run} set it to the program's loader);</li>
 *   <li>lpf4j's own loader, then the stream's default (which also knows primitive types).</li>
 * </ol>
 * The loaders are captured once, so it does not matter which thread later deserializes (a node's
 * leader, a thread the barrier picked, a rank's command loop).
 *
 * <p>Cost: Java serialization; engines call it once per distinct object (an operator is shipped
 * once per attribute), never per put or per sync. Thread-safe and immutable.
 */
public final class CrossJvmObjects {
    private final List<ClassLoader> loaders;

    private CrossJvmObjects(List<ClassLoader> loaders) {
        this.loaders = List.copyOf(loaders);
    }

    /**
     * The resolution of a section that runs {@code program}: its class's loader and those of the
     * functions it carries ({@link Carrier}), unless lpf4j's own loader or the bootstrap loader
     * loaded them, then the current thread's context loader, then lpf4j's.
     *
     * @param program the section's SPMD function, or any object of the program; may be {@code null}
     */
    public static CrossJvmObjects forSection(Object program) {
        List<ClassLoader> found = new ArrayList<>();
        ClassLoader own = CrossJvmObjects.class.getClassLoader();
        for (Object o = program; o != null; o = o instanceof Carrier c ? c.program() : null) {
            ClassLoader l = o.getClass().getClassLoader();
            if (l != own) add(found, l);
        }
        return withContextLoader(found);
    }

    /**
     * A function that runs a program's function inside it (an engine's per-node section, a
     * decorator): {@link #forSection} looks through it to the program's own class.
     */
    public interface Carrier {
        /** @return the function this one runs (may itself be a carrier), or null */
        Object program();
    }

    /** The resolution of the current thread: its context loader, then lpf4j's own. */
    public static CrossJvmObjects forCurrentThread() {
        return withContextLoader(new ArrayList<>());
    }

    private static CrossJvmObjects withContextLoader(List<ClassLoader> found) {
        add(found, Thread.currentThread().getContextClassLoader());
        add(found, CrossJvmObjects.class.getClassLoader());
        return new CrossJvmObjects(found);
    }

    private static void add(List<ClassLoader> to, ClassLoader loader) {
        if (loader != null && !to.contains(loader)) to.add(loader);
    }

    /** @return the loaders tried, in order (for messages and tests) */
    public List<ClassLoader> loaders() { return loaders; }

    /**
     * @return {@code o} serialized
     * @throws java.io.NotSerializableException (an {@link IOException}) naming the class that does not serialize
     */
    public static byte[] serialize(Object o) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        return bytes.toByteArray();
    }

    /** @return the object {@link #serialize} made of {@code bytes} */
    public Object deserialize(byte[] bytes) throws IOException, ClassNotFoundException {
        try (ObjectInputStream in = input(new ByteArrayInputStream(bytes))) {
            return in.readObject();
        }
    }

    /** @return the object serialized in {@code length} bytes of {@code from} at {@code offset} */
    public Object deserialize(MemorySegment from, long offset, int length) throws IOException, ClassNotFoundException {
        return deserialize(from.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
    }

    /** @return an object stream over {@code in} that resolves classes as the class comment says */
    public ObjectInputStream input(InputStream in) throws IOException {
        return new ObjectInputStream(in) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
                Class<?> c = find(desc.getName());
                return c != null ? c : super.resolveClass(desc);
            }

            @Override
            @SuppressWarnings("deprecation") // getProxyClass is the one call that makes a proxy class in a chosen loader
            protected Class<?> resolveProxyClass(String[] interfaces) throws IOException, ClassNotFoundException {
                for (ClassLoader l : loaders) {
                    try {
                        Class<?>[] types = new Class<?>[interfaces.length];
                        for (int i = 0; i < interfaces.length; i++) types[i] = Class.forName(interfaces[i], false, l);
                        return Proxy.getProxyClass(l, types);
                    } catch (ClassNotFoundException | IllegalArgumentException e) {
                        // next loader
                    }
                }
                return super.resolveProxyClass(interfaces);
            }
        };
    }

    /** @return the class named {@code name} in the first loader that has it, or {@code null} */
    private Class<?> find(String name) {
        for (ClassLoader l : loaders) {
            try {
                return Class.forName(name, false, l);
            } catch (ClassNotFoundException e) {
                // next loader
            }
        }
        return null;
    }
}
