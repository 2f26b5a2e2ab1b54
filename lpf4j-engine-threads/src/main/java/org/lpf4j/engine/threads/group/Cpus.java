package org.lpf4j.engine.threads.group;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * The calling thread's CPU and CPU affinity, through Linux's {@code sched_getcpu},
 * {@code sched_getaffinity} and {@code sched_setaffinity} (libc, {@code java.lang.foreign}).
 * Engines only.
 *
 * <p>{@link #usable()} is false — and every method a no-op answering "unknown" — on other
 * systems, when libc lacks the functions, and when this module has no native access (the JVM
 * was started without {@code --enable-native-access} for it): the engine then never asks, so
 * no warning about restricted methods is printed.
 *
 * <p>Costs: {@link #current()} is one downcall (glibc reads the CPU from the thread's rseq
 * area, a few nanoseconds); {@link #moveOff} is three system calls and a migration (a few
 * microseconds) and allocates nothing (the caller passes its {@link Masks}).
 */
public final class Cpus {
    private Cpus() {}

    /** Bytes of the CPU mask handed to the kernel: 1024 CPUs (a machine with more gets no moves: the kernel refuses the mask). */
    private static final long MASK_BYTES = 128;

    /** The native masks one thread's {@link #moveOff} works in, made once so that a move allocates nothing. */
    public static final class Masks {
        final MemorySegment allowed, target, preferred;

        /** @param arena where the three masks (384 bytes) live */
        public Masks(Arena arena) {
            allowed = arena.allocate(MASK_BYTES, 8);
            target = arena.allocate(MASK_BYTES, 8);
            preferred = arena.allocate(MASK_BYTES, 8);
        }
    }

    private static final MethodHandle GET_CPU, GET_AFFINITY, SET_AFFINITY, SYSCONF;
    /** {@code _SC_NPROCESSORS_ONLN} of Linux's libc. */
    private static final int SC_NPROCESSORS_ONLN = 84;

    static {
        MethodHandle getCpu = null, getAffinity = null, setAffinity = null, sysconf = null;
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
                && Cpus.class.getModule().isNativeAccessEnabled()) {
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                // The mask pointer is passed as a 64-bit integer (its address): a MemorySegment argument
                // allocated on every call until the JIT compiled the caller.
                FunctionDescriptor affinity = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
                MemorySegment gc = libc.find("sched_getcpu").orElse(null);
                MemorySegment ga = libc.find("sched_getaffinity").orElse(null);
                MemorySegment sa = libc.find("sched_setaffinity").orElse(null);
                MemorySegment sc = libc.find("sysconf").orElse(null);
                if (gc != null && ga != null && sa != null && sc != null) {
                    getCpu = linker.downcallHandle(gc, FunctionDescriptor.of(ValueLayout.JAVA_INT), Linker.Option.critical(false));
                    getAffinity = linker.downcallHandle(ga, affinity);
                    setAffinity = linker.downcallHandle(sa, affinity);
                    sysconf = linker.downcallHandle(sc, FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
                }
            } catch (RuntimeException | LinkageError e) {
                getCpu = getAffinity = setAffinity = sysconf = null; // no placement: the engine works without it
            }
        }
        GET_CPU = getCpu;
        GET_AFFINITY = getAffinity;
        SET_AFFINITY = setAffinity;
        SYSCONF = sysconf;
        if (SET_AFFINITY != null) warmUp();
    }

    /**
     * A downcall allocates on every call until the JIT has compiled it,
     * and moves are rare enough that it never would be: a program's superstep that happened to
     * move would allocate. So the class runs the whole move path, without moving, a few hundred
     * times when it is loaded (well under a millisecond).
     */
    private static void warmUp() {
        Masks masks = new Masks(Arena.ofAuto());
        boolean[] none = new boolean[0];
        for (int i = 0; i < WARM_UP_CALLS; i++) {
            current();
            reaffine(-1, none, masks);
        }
    }

    private static final int WARM_UP_CALLS = 400;

    /** @return whether CPUs can be read and affinities changed here */
    public static boolean usable() { return GET_CPU != null; }

    /** @return the CPU the calling thread runs on, or -1 if unknown */
    public static int current() {
        if (GET_CPU == null) return -1;
        try {
            return (int) GET_CPU.invokeExact();
        } catch (Throwable t) {
            return -1;
        }
    }

    /** @return how many CPUs the calling thread may run on, or -1 if unknown */
    public static int allowed() {
        int[] cpus = allowedCpus();
        return cpus.length == 0 ? -1 : cpus.length;
    }

    /** @return the CPUs the calling thread may run on, in increasing order; empty if unknown */
    public static int[] allowedCpus() {
        if (GET_AFFINITY == null) return new int[0];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES, 8);
            if ((int) GET_AFFINITY.invokeExact(0, MASK_BYTES, mask.address()) != 0) return new int[0];
            int n = 0;
            for (long i = 0; i < MASK_BYTES / 8; i++) n += Long.bitCount(mask.getAtIndex(ValueLayout.JAVA_LONG, i));
            int[] cpus = new int[n];
            for (int c = 0, k = 0; k < n; c++) if (isSet(mask, c)) cpus[k++] = c;
            return cpus;
        } catch (Throwable t) {
            return new int[0];
        }
    }

    /** @return how many CPUs the machine has online (whatever this thread may use), or -1 if unknown */
    public static int online() {
        if (SYSCONF == null) return -1;
        try {
            return (int) (long) SYSCONF.invokeExact(SC_NPROCESSORS_ONLN);
        } catch (Throwable t) {
            return -1;
        }
    }

    /**
     * Restricts the calling thread (and the threads it starts afterwards, which inherit it) to
     * {@code cpus}. Unlike {@link #moveOff}, this stays until changed again: a binding, as an MPI
     * launcher's {@code --bind-to} makes one. A few system calls.
     *
     * @param cpus CPU numbers, each below 1024, at least one
     * @return whether the kernel took it (false also where {@link #usable()} is false)
     */
    public static boolean bindTo(int[] cpus) {
        if (SET_AFFINITY == null || cpus.length == 0) return false;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES, 8);
            for (int c : cpus) {
                if (c < 0 || c >= MASK_BYTES * 8) return false;
                set(mask, c);
            }
            return (int) SET_AFFINITY.invokeExact(0, MASK_BYTES, mask.address()) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /**
     * Moves the calling thread off {@code cpu}, preferably to a CPU not in {@code avoid}, and
     * then gives it back exactly the affinity it had: the thread stays where the kernel put it
     * until the scheduler moves it again, and threads it starts later inherit the full affinity,
     * never a single CPU.
     *
     * @param cpu     the CPU to leave
     * @param avoid   CPUs to avoid if another allowed one is left ({@code avoid[i]} is CPU i; may be shorter)
     * @param masks   working memory, used by this thread only
     * @return whether the thread was moved
     */
    public static boolean moveOff(int cpu, boolean[] avoid, Masks masks) {
        if (SET_AFFINITY == null || cpu < 0 || cpu >= MASK_BYTES * 8) return false;
        return reaffine(cpu, avoid, masks);
    }

    /** {@link #moveOff}; with {@code cpu} = -1 it sets the thread's own affinity twice (the warm-up). */
    private static boolean reaffine(int cpu, boolean[] avoid, Masks masks) {
        MemorySegment allowed = masks.allowed, target = masks.target, preferred = masks.preferred;
        try {
            if ((int) GET_AFFINITY.invokeExact(0, MASK_BYTES, allowed.address()) != 0) return false;
            if (cpu >= 0 && !isSet(allowed, cpu)) return false;
            target.copyFrom(allowed);
            if (cpu >= 0) clear(target, cpu);
            if (isEmpty(target)) return false;
            preferred.copyFrom(target);
            for (int c = 0; c < avoid.length && c < MASK_BYTES * 8; c++) if (avoid[c]) clear(preferred, c);
            MemorySegment to = isEmpty(preferred) ? target : preferred;
            if ((int) SET_AFFINITY.invokeExact(0, MASK_BYTES, to.address()) != 0) return false;
            // Restore: the kernel keeps the thread where it is as long as that CPU stays allowed.
            return (int) SET_AFFINITY.invokeExact(0, MASK_BYTES, allowed.address()) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    private static boolean isSet(MemorySegment mask, int cpu) {
        return (mask.getAtIndex(ValueLayout.JAVA_LONG, cpu >>> 6) & (1L << (cpu & 63))) != 0;
    }

    private static void set(MemorySegment mask, int cpu) {
        long i = cpu >>> 6;
        mask.setAtIndex(ValueLayout.JAVA_LONG, i, mask.getAtIndex(ValueLayout.JAVA_LONG, i) | 1L << (cpu & 63));
    }

    private static void clear(MemorySegment mask, int cpu) {
        long i = cpu >>> 6;
        mask.setAtIndex(ValueLayout.JAVA_LONG, i, mask.getAtIndex(ValueLayout.JAVA_LONG, i) & ~(1L << (cpu & 63)));
    }

    private static boolean isEmpty(MemorySegment mask) {
        for (long i = 0; i < MASK_BYTES / 8; i++) if (mask.getAtIndex(ValueLayout.JAVA_LONG, i) != 0) return false;
        return true;
    }
}
