package org.lpf4j.engine.mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Records, inside the kernel, which of the ranks on one host died first: a System V semaphore set
 * shared by those ranks. A {@link RankGuard} wakes only after its JVM is gone and after the
 * launcher may have killed the other ranks too, so which guard runs first says nothing on a busy
 * machine (measured: Hydra's clean-up kill beat the dead rank's guard in a CI run on 2 cores).
 * The latch decides without any process having to be scheduled.
 *
 * <p>Record layout of the set, for {@code n} ranks on the host (local ids {@code 0..n-1} from the
 * launcher's environment):
 * <pre>
 *   semaphore k (0 <= k < n)  rank k's life: 0 not yet started, 1 alive, 3 dead
 *   semaphore n               the latch: 1 while no death is recorded, then 0
 *   semaphore n+1             the first dead rank's local id + 1, or 0
 *   semaphore n+2             how many ranks ended normally
 * </pre>
 * Rank k raises its semaphore by 3 and lowers it by 2 with {@code SEM_UNDO} in one {@code semop}:
 * 1 while it lives; when it dies, however it dies, the kernel undoes the −2 on its way out, before
 * it closes the process's files (so before the guard or the launcher can notice the death).
 * Each rank keeps one thread blocked in a {@code semop} for its successor {@code s = (k+1) mod n}:
 * "take 2 from s's semaphore, 1 from the latch, add s+1 to the result", all or nothing. The kernel
 * performs that waiting operation inside the undo of the first rank that dies, whose predecessor is
 * by definition still alive; later deaths find the latch at 0. A JVM that ends normally (its
 * shutdown hooks run: also on the SIGTERM with which Open MPI's {@code mpirun} ends a job) cancels
 * its undo in one atomic {@code semop} that leaves its semaphore at 1, so an ordinary end is never
 * recorded.
 *
 * <p>Cost: one semaphore set per host and job, one {@code semop} per rank at start, and one
 * platform thread per rank parked in the kernel; nothing per sync. The set is removed by the last
 * of the host's ranks to end normally, by {@link MpiLauncher#commandReportingDeaths}'s wrapper after a death
 * (it reads the key from {@value #KEY_FILE}), or, for a job started by hand, by the next job's
 * {@link RankGuard} on this host. Without System V IPC, or with one rank on the host, there is no
 * latch and the guards fall back to their election.
 */
final class DeathLatch {
    /** The file in the job's directory that holds the set's key (hexadecimal, {@code 0x...}). */
    static final String KEY_FILE = "semkey";

    // Linux's <sys/ipc.h> and <sys/sem.h>.
    private static final int IPC_CREAT = 01000, IPC_EXCL = 02000, IPC_RMID = 0, GETVAL = 12, SEM_UNDO = 0x1000;
    private static final int EINTR = 4;
    /** struct sembuf { unsigned short sem_num; short sem_op; short sem_flg; } */
    private static final long SEMBUF = 6;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final long ERRNO_OFFSET = Linker.Option.captureStateLayout()
            .byteOffset(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle SEMGET = downcall("semget",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle SEMOP = downcall("semop",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG),
            ERRNO);
    private static final MethodHandle SEMCTL = downcall("semctl",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(3));

    private final int id, size, local;

    private DeathLatch(int id, int size, int local) {
        this.id = id;
        this.size = size;
        this.local = local;
    }

    private static MethodHandle downcall(String name, FunctionDescriptor fd, Linker.Option... options) {
        return LINKER.defaultLookup().find(name).map(s -> LINKER.downcallHandle(s, fd, options)).orElse(null);
    }

    /**
     * Joins (or creates) the latch of the job whose ranks on this host share {@code dir}, records
     * this rank as alive and starts the thread that waits for its successor.
     *
     * @param dir   the directory the job's ranks on this host share
     * @param local this rank's local id on the host
     * @param size  the number of the job's ranks on the host
     * @return the latch, or null where there is none (one rank on the host, no System V IPC)
     */
    static DeathLatch join(Path dir, int local, int size) {
        if (size < 2 || local < 0 || local >= size || SEMGET == null || SEMOP == null || SEMCTL == null) return null;
        try {
            int key = keyOf(dir);
            int id = (int) SEMGET.invokeExact(key, size + 3, IPC_CREAT | IPC_EXCL | 0600);
            if (id >= 0) {
                // The creator opens the latch and tells the launching side how to remove the set.
                DeathLatch latch = new DeathLatch(id, size, local);
                if (latch.semop(latch.latch(), 1, 0) != 0) return latch.removed();
                try {
                    Files.writeString(dir.resolve(KEY_FILE), String.format("0x%08x%n", key), StandardCharsets.US_ASCII,
                            StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                } catch (java.io.IOException e) {
                    // the set is still removed by the JVMs that end normally
                }
                return latch.alive();
            }
            id = (int) SEMGET.invokeExact(key, size + 3, 0);
            return id < 0 ? null : new DeathLatch(id, size, local).alive();
        } catch (Throwable t) {
            return null;
        }
    }

    /** Records this rank as alive (undone by the kernel at its death) and waits for the successor. */
    private DeathLatch alive() {
        if (semop(local, 3, 0, local, -2, SEM_UNDO) != 0) return null;
        int successor = (local + 1) % size;
        Thread waiter = new Thread(() -> {
            // Returns when the successor died first (the kernel did the whole operation), when the
            // set is removed, or never: the thread ends with its JVM.
            int rc;
            do {
                rc = semop(successor, -2, 0, latch(), -1, 0, result(), successor + 1, 0);
            } while (rc == EINTR);
        }, "lpf-mpi-death-latch");
        waiter.setDaemon(true);
        waiter.start();
        return this;
    }

    /**
     * This rank ends normally: its death is no longer to be recorded. The undo is cancelled and the
     * semaphore left at 1 in one operation, so the waiting predecessor never sees it move.
     *
     * @return true if this was the last of the host's ranks to end normally (the set is then removed)
     */
    boolean ended() {
        if (semop(local, 2, SEM_UNDO, local, -2, 0, endedCount(), 1, 0) != 0) return false;
        try {
            if ((int) SEMCTL.invokeExact(id, endedCount(), GETVAL) < size) return false;
        } catch (Throwable t) {
            return false;
        }
        remove();
        return true;
    }

    private int endedCount() {
        return size + 2;
    }

    private DeathLatch removed() {
        remove();
        return null;
    }

    /** @return the set's identifier (for {@code ipcs -s -i}) */
    int id() {
        return id;
    }

    /** @return the index of the result semaphore (the first dead rank's local id + 1, or 0) */
    int result() {
        return size + 1;
    }

    private int latch() {
        return size;
    }

    /** @return this rank's local id plus one, the result that names it */
    int mark() {
        return local + 1;
    }

    /** Removes the set (the other ranks' waiting threads return). */
    void remove() {
        try {
            int ignored = (int) SEMCTL.invokeExact(id, 0, IPC_RMID);
        } catch (Throwable t) {
            // removed already
        }
    }

    /**
     * Removes the set of the job whose directory was {@code dir}, if it still exists.
     *
     * @param dir the job's directory
     */
    static void removeFor(Path dir) {
        if (SEMGET == null || SEMCTL == null) return;
        try {
            int id = (int) SEMGET.invokeExact(keyOf(dir), 0, 0);
            if (id >= 0) new DeathLatch(id, 0, 0).remove();
        } catch (Throwable t) {
            // nothing to remove
        }
    }

    /**
     * @param dir a job's directory (unique per job: a random name, or the launcher daemon's pid and start time)
     * @return the set's key, derived from the directory's name so that every rank finds it; never
     *         {@code IPC_PRIVATE} (0)
     */
    static int keyOf(Path dir) {
        int h = dir.toAbsolutePath().normalize().toString().hashCode();
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        return h == 0 ? 1 : h;
    }

    /**
     * One {@code semop} of (semaphore, change, flags) triples.
     *
     * @return 0, or errno
     */
    private int semop(int... triples) {
        try (Arena arena = Arena.ofConfined()) {
            int n = triples.length / 3;
            MemorySegment ops = arena.allocate(SEMBUF * n, 2);
            for (int i = 0; i < n; i++) {
                ops.set(ValueLayout.JAVA_SHORT, i * SEMBUF, (short) triples[3 * i]);
                ops.set(ValueLayout.JAVA_SHORT, i * SEMBUF + 2, (short) triples[3 * i + 1]);
                ops.set(ValueLayout.JAVA_SHORT, i * SEMBUF + 4, (short) triples[3 * i + 2]);
            }
            MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
            int rc = (int) SEMOP.invokeExact(state, id, ops, (long) n);
            return rc == 0 ? 0 : Math.max(1, state.get(ValueLayout.JAVA_INT, ERRNO_OFFSET));
        } catch (Throwable t) {
            return -1;
        }
    }
}
