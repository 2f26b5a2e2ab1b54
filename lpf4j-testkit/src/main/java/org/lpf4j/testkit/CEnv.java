package org.lpf4j.testkit;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The C environment of this process, as native libraries (libmpi, UCX) see it: read with libc's
 * {@code getenv} ({@link System#getenv} is a copy taken at JVM start and misses what an engine
 * set since). Needs native access for the caller's module (or {@code ALL-UNNAMED}).
 */
public final class CEnv {
    private CEnv() {}

    /** @return libc's {@code getenv(name)}, or null */
    public static String get(String name) {
        Linker linker = Linker.nativeLinker();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = (MemorySegment) linker.downcallHandle(linker.defaultLookup().findOrThrow("getenv"),
                    FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS)).invokeExact(arena.allocateFrom(name));
            return v.equals(MemorySegment.NULL) ? null : v.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            throw new IllegalStateException("getenv(" + name + ")", t);
        }
    }
}
