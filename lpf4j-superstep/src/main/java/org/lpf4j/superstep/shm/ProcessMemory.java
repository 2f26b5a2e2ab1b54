package org.lpf4j.superstep.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Optional;

/**
 * Reads another process's memory on this host in one copy: Linux's cross-memory attach,
 * {@code process_vm_readv(2)}, called through {@link java.lang.foreign} as libc's
 * {@code syscall(SYS_process_vm_readv, …)} (from the native linker's default lookup). It needs
 * {@code --enable-native-access} for this module (or {@code ALL-UNNAMED} on the class path); without
 * it the call is {@linkplain #available unavailable}, so that the JVM never prints its warning about
 * restricted methods.
 *
 * <p>The destination is held for the call: its segment goes to {@code syscall} as one more argument,
 * which the kernel never reads but the linker keeps alive, so that closing its {@link Arena} from
 * another thread while the kernel writes into it fails ("acquired") instead of freeing memory under
 * the copy. Hence {@code syscall} and not libc's {@code process_vm_readv}, whose six parameters leave
 * no room; the call's number is known for x86-64, AArch64 and RISC-V 64 (elsewhere it is unavailable).
 *
 * <p>Whether a process may read another is the kernel's decision (the same user and, under Yama's
 * {@code ptrace_scope} of 1 or more, a ptrace relation or {@code CAP_SYS_PTRACE}; containers may
 * forbid it): a caller probes it once ({@link #read} of a word whose value it knows) and falls back
 * to another path when it fails. Nothing here assumes it works.
 *
 * <p>Cost: one system call per {@link #read} (more only if the kernel returns a partial count),
 * the kernel copying straight from the other process's pages into the destination; allocates
 * nothing after construction. An instance is used by one thread at a time.
 */
public final class ProcessMemory {
    private static final MethodHandle READV;
    private static final StructLayout STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    /** The errno values this class names. */
    public static final int EPERM = 1, ESRCH = 3, EFAULT = 14, ENOSYS = 38;
    /** The system call's number on this architecture (Linux's tables), or 0 where this class does not know it. */
    private static final long SYS_PROCESS_VM_READV = switch (System.getProperty("os.arch", "")) {
        case "amd64", "x86_64" -> 310;
        case "aarch64", "riscv64" -> 270; // the generic table
        default -> 0;
    };

    static {
        MethodHandle h = null;
        try {
            Linker linker = Linker.nativeLinker();
            Optional<MemorySegment> f = linker.defaultLookup().find("syscall");
            // Without native access granted the JVM would warn at the first downcall: then the call is unavailable instead.
            if (f.isPresent() && SYS_PROCESS_VM_READV > 0 && ProcessMemory.class.getModule().isNativeAccessEnabled()) {
                // long syscall(long number, ...): every argument after the number is variadic and a long or a pointer.
                h = linker.downcallHandle(f.get(), FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.ADDRESS), Linker.Option.firstVariadicArg(1), Linker.Option.captureCallState("errno"));
            }
        } catch (RuntimeException | Error e) {
            h = null; // no such call on this system (or native access refused): unavailable, callers use their other path
        }
        READV = h;
    }

    /** Two iovecs ({base, length}: the local one, then the remote one) and the captured errno. */
    private final MemorySegment iov, remoteIov, state;

    /** Makes a reader (its few bytes of native memory are freed with it). */
    public ProcessMemory() {
        Arena arena = Arena.ofAuto();
        iov = arena.allocate(32, 8);
        remoteIov = iov.asSlice(16, 16);
        state = arena.allocate(STATE);
    }

    /** @return whether this system has the call at all (a read may still be refused) */
    public static boolean available() { return READV != null; }

    /**
     * Copies {@code length} bytes at {@code address} in process {@code pid}'s memory to
     * {@code offset} of {@code into}.
     *
     * @param into native memory, alive
     * @return {@code length} if every byte was read, else the negated errno of the failure
     *         ({@link #ESRCH}: no such process, {@link #EFAULT}: an address not mapped there,
     *         {@link #EPERM}: not allowed, {@link #ENOSYS}: no such call), or
     *         {@link Integer#MIN_VALUE} if the kernel read nothing and said no error
     * @throws IllegalArgumentException if {@code into} is not native or the range is outside it
     * @throws IllegalStateException    if {@code into}'s memory was freed (it cannot be while the call runs)
     */
    public long read(long pid, long address, MemorySegment into, long offset, long length) {
        if (!into.isNative() || offset < 0 || length < 0 || offset > into.byteSize() - length) {
            throw new IllegalArgumentException("process_vm_readv into " + into + " at offset " + offset + " of " + length
                    + " bytes: not a range of native memory");
        }
        if (!into.scope().isAlive()) throw new IllegalStateException("process_vm_readv into memory whose Arena is closed");
        if (READV == null) return -ENOSYS;
        long done = 0;
        while (done < length) {
            iov.set(ValueLayout.JAVA_LONG, 0, into.address() + offset + done);
            iov.set(ValueLayout.JAVA_LONG, 8, length - done);
            iov.set(ValueLayout.JAVA_LONG, 16, address + done);
            iov.set(ValueLayout.JAVA_LONG, 24, length - done);
            long n;
            try {
                n = (long) READV.invokeExact(state, SYS_PROCESS_VM_READV, pid, iov, 1L, remoteIov, 1L, 0L, into);
            } catch (IllegalStateException e) { // closed after the look above
                throw new IllegalStateException("process_vm_readv into memory whose Arena is closed", e);
            } catch (Throwable t) {
                throw new IllegalStateException("process_vm_readv failed to run: " + t, t);
            }
            if (n < 0) return -(int) ERRNO.get(state, 0L);
            if (n == 0) return Integer.MIN_VALUE;
            done += n;
        }
        return length;
    }

    /** @return a failed {@link #read}'s result as words: the errno's name and meaning */
    public static String describe(long result) {
        if (result == Integer.MIN_VALUE) return "nothing read";
        int errno = (int) -result;
        return switch (errno) {
            case EPERM -> "EPERM (not permitted: another user, Yama ptrace_scope, or a container's policy)";
            case ESRCH -> "ESRCH (no such process: it ended)";
            case EFAULT -> "EFAULT (an address not mapped in that process: it ended or freed the memory)";
            case ENOSYS -> "ENOSYS (no cross-memory attach on this system)";
            default -> "errno " + errno;
        };
    }
}
