package org.lpf4j.engine.mpi.layered;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * This process's environment as native libraries see it: libc's {@code getenv} and {@code setenv}
 * through {@code java.lang.foreign}. {@link System#getenv} is a copy taken when the JVM started and
 * does not see {@code setenv}; libmpi and UCX read the C environment, so a variable they must see
 * is set here, before the library is loaded. Not synchronised with native threads that read the
 * environment at the same time: call it before MPI runs. Public for the MPI engine's own packages
 * and the layered engine (the package is exported to it only).
 */
public final class NativeEnv {
    private NativeEnv() {}

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle GETENV = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("getenv"),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    private static final MethodHandle SETENV = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("setenv"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));

    /**
     * @param name a variable name
     * @return its value in the C environment now, or {@code null} if it is unset
     */
    public static String get(String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = (MemorySegment) GETENV.invokeExact(a.allocateFrom(name));
            return v.equals(MemorySegment.NULL) ? null : v.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            throw new IllegalStateException("getenv(" + name + ")", t);
        }
    }

    /**
     * {@code setenv(name, value, 0)}: sets the variable unless it is set (to anything, even empty).
     *
     * @param name  a variable name
     * @param value the value to give it
     * @return whether it was unset and now has {@code value}
     * @throws IllegalStateException if {@code setenv} fails (it returns -1 only for a bad name or no memory)
     */
    public static boolean setIfUnset(String name, String value) {
        if (get(name) != null) return false;
        int rc;
        try (Arena a = Arena.ofConfined()) {
            rc = (int) SETENV.invokeExact(a.allocateFrom(name), a.allocateFrom(value), 0);
        } catch (Throwable t) {
            throw new IllegalStateException("setenv(" + name + ", \"" + value + "\", 0)", t);
        }
        if (rc != 0) throw new IllegalStateException("setenv(" + name + ", \"" + value + "\", 0) returned " + rc);
        return true;
    }
}
