package org.lpf4j.engine.mpi;

import org.lpf4j.engine.mpi.layered.NativeEnv;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds and loads libmpi. The library is opened with {@code dlopen(RTLD_NOW | RTLD_GLOBAL)} (a
 * downcall into libc): Open MPI loads its components (the {@code mca_*.so} plugins) with
 * {@code dlopen} and they resolve libmpi's symbols through the global scope, which
 * {@link SymbolLookup#libraryLookup} (local scope) would not give them.
 *
 * <p>Candidates, in order: the path given (parameter {@code lpf.engine.mpi.library}), else
 * {@code libmpi.so.40} (Open MPI), then {@code libmpich.so.12} (MPICH). Cost: one {@code dlopen}
 * per candidate tried, once per JVM.
 *
 * <p>Before the first {@code dlopen}, {@code UCX_ERROR_SIGNALS} is set to empty unless it is set:
 * UCX (which MPICH, and Open MPI's UCX components, load) installs its own handlers for SIGSEGV,
 * SIGBUS, SIGILL and SIGFPE in its library constructor, that is inside {@code dlopen}, and a
 * SIGSEGV the JVM raises on purpose (an implicit null check, a safepoint poll) then ends the JVM in
 * UCX's error handler. A launcher's environment cannot be relied on for that (a program may be
 * started by hand with {@code mpiexec}), so the engine sets it itself.
 */
final class MpiLibrary {
    /** glibc's {@code RTLD_NOW}. */
    private static final int RTLD_NOW = 2;
    /** glibc's {@code RTLD_GLOBAL}. */
    private static final int RTLD_GLOBAL = 0x100;
    /** The sonames tried when no path is given: Open MPI first, then MPICH. */
    static final List<String> SONAMES = List.of("libmpi.so.40", "libmpich.so.12");

    /** The name or path that loaded. */
    final String name;
    /** Its symbols. */
    final SymbolLookup lookup;
    /** The ABI it speaks. */
    final MpiAbi abi;

    private MpiLibrary(String name, SymbolLookup lookup, MpiAbi abi) {
        this.name = name;
        this.lookup = lookup;
        this.abi = abi;
    }

    private static volatile MpiLibrary loaded;

    /** UCX's list of signals it handles as errors; empty: none (see the class comment). */
    static final String UCX_ERROR_SIGNALS = org.lpf4j.spi.kit.LauncherEnvironment.UCX_ERROR_SIGNALS;

    /**
     * Loads libmpi once per JVM (later calls return the same library, whatever they ask for).
     *
     * @param path a file name or path, or {@code null}/empty for the usual sonames
     * @return the library
     * @throws IllegalStateException naming every candidate tried and why it failed
     */
    static synchronized MpiLibrary load(String path) {
        if (loaded != null) return loaded;
        NativeEnv.setIfUnset(UCX_ERROR_SIGNALS, "");
        List<String> candidates = path == null || path.isBlank() ? SONAMES : List.of(path);
        List<String> failures = new ArrayList<>();
        for (String c : candidates) {
            MemorySegment handle = Dl.open(c);
            if (handle.equals(MemorySegment.NULL)) {
                failures.add(c + ": " + Dl.error());
                continue;
            }
            SymbolLookup lookup = symbol -> Dl.sym(handle, symbol);
            MpiAbi abi = MpiAbi.detect(lookup);
            if (abi == null) {
                failures.add(c + ": neither Open MPI's nor MPICH's ABI (no ompi_mpi_comm_world, no MPII_Version_ABI)");
                continue;
            }
            loaded = new MpiLibrary(c, lookup, abi);
            return loaded;
        }
        throw new IllegalStateException("no usable MPI library: " + String.join("; ", failures)
                + " (set lpf.engine.mpi.library to the path of libmpi)");
    }

    /** The directories {@link #locate} searches after {@code LD_LIBRARY_PATH}. */
    private static final List<String> SYSTEM_DIRS = List.of("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
            "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib64", "/lib", "/usr/local/lib",
            "/usr/lib64/openmpi/lib", "/usr/lib64/mpich/lib", "/opt/openmpi/lib", "/opt/mpich/lib");

    /**
     * Finds libmpi without loading it (for {@code query}, which must have no side effects).
     *
     * @param path the configured path or soname, or empty
     * @return the file found, or null
     */
    static String locate(String path) {
        List<String> names = path == null || path.isBlank() ? SONAMES : List.of(path);
        List<String> dirs = new ArrayList<>();
        String ld = System.getenv("LD_LIBRARY_PATH");
        if (ld != null) for (String d : ld.split(":")) if (!d.isEmpty()) dirs.add(d);
        dirs.addAll(SYSTEM_DIRS);
        for (String n : names) {
            if (n.contains("/")) {
                if (java.nio.file.Files.isReadable(java.nio.file.Path.of(n))) return n;
                continue;
            }
            for (String d : dirs) {
                java.nio.file.Path f = java.nio.file.Path.of(d, n);
                if (java.nio.file.Files.isReadable(f)) return f.toString();
            }
        }
        return null;
    }

    /** libc's dynamic loader calls. */
    private static final class Dl {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final MethodHandle DLOPEN = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("dlopen"),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        private static final MethodHandle DLSYM = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("dlsym"),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        private static final MethodHandle DLERROR = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("dlerror"),
                FunctionDescriptor.of(ValueLayout.ADDRESS));

        static MemorySegment open(String name) {
            try (Arena a = Arena.ofConfined()) {
                return (MemorySegment) DLOPEN.invokeExact(a.allocateFrom(name), RTLD_NOW | RTLD_GLOBAL);
            } catch (Throwable t) {
                throw new IllegalStateException("dlopen(" + name + ")", t);
            }
        }

        static Optional<MemorySegment> sym(MemorySegment handle, String symbol) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment s = (MemorySegment) DLSYM.invokeExact(handle, a.allocateFrom(symbol));
                return s.equals(MemorySegment.NULL) ? Optional.empty() : Optional.of(s);
            } catch (Throwable t) {
                throw new IllegalStateException("dlsym(" + symbol + ")", t);
            }
        }

        static String error() {
            try {
                MemorySegment s = (MemorySegment) DLERROR.invokeExact();
                return s.equals(MemorySegment.NULL) ? "unknown dlopen error" : s.reinterpret(4096).getString(0);
            } catch (Throwable t) {
                throw new IllegalStateException("dlerror()", t);
            }
        }
    }
}
