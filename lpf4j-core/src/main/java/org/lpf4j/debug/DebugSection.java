package org.lpf4j.debug;

import org.lpf4j.Context;

import java.io.Serial;
import java.io.Serializable;

/**
 * What the debug decorators of one SPMD section share: each process's {@link DebugContext} (the
 * "board" the cross-process checks read at sync), the first error reported, and the sections of
 * successive {@code rehook}s.
 *
 * <p>A section of {@code exec} or {@code rehook} is <em>shared</em>: its processes make the barrier
 * sync before each superstep's checks and read each other's state on the board. Every process of
 * the section must make the same engine syncs, so a section object that crosses JVMs (a
 * multi-process engine serialises the SPMD function) stays shared: it arrives as a fresh board
 * of the same kind, which the processes of that JVM join (one MPI rank, or a hybrid node's
 * threads). The cross-process checks (remote bounds, queue capacity at the target, collective
 * order, conflicts with remote requests) then see the processes of their own JVM and skip the
 * others; the local checks remain. Sections of {@code hook} are not shared (their members share no
 * object): no barrier, local checks only. Thread-safe.
 */
final class DebugSection implements Serializable {
    @Serial private static final long serialVersionUID = 1L;

    private final boolean shared;
    private DebugContext[] members;
    private volatile LpfProgrammingError firstError;
    private long rehookRound;
    private DebugSection rehookSection;

    /** @param shared whether the processes make the barrier sync and join this object (one copy per JVM) */
    DebugSection(boolean shared) { this.shared = shared; }

    /** @return whether the processes make the barrier sync and read each other's state (those of this JVM) */
    boolean shared() { return shared; }

    /** Makes and records the decorator of one process; called first thing by each process. */
    synchronized DebugContext join(Context engine) {
        if (members == null) members = new DebugContext[engine.nprocs()];
        DebugContext d = new DebugContext(engine, this);
        members[engine.pid()] = d;
        return d;
    }

    /** @return process {@code pid}'s decorator, or {@code null} if it is not visible from here */
    synchronized DebugContext member(int pid) {
        return members != null && pid < members.length ? members[pid] : null;
    }

    /** Records a report; the first one is what every process's failure carries. */
    void record(LpfProgrammingError e) {
        synchronized (this) {
            if (firstError == null) firstError = e;
        }
    }

    /** @return the first report of this section, or {@code null} */
    LpfProgrammingError firstError() { return firstError; }

    /** @return the shared section of the {@code round}-th rehook (the first caller makes it) */
    synchronized DebugSection rehook(long round) {
        if (round > rehookRound) {
            rehookRound = round;
            rehookSection = new DebugSection(shared);
        }
        return rehookSection;
    }

    @Serial
    private Object writeReplace() { return new Copy(shared); }

    /**
     * What a section becomes in another JVM: a fresh board of the same kind (the board and reports
     * of this JVM stay here). Keeping {@code shared} keeps the engine syncs of every process alike.
     */
    private record Copy(boolean shared) implements Serializable {
        @Serial private static final long serialVersionUID = 1L;

        @Serial
        private Object readResolve() { return new DebugSection(shared); }
    }
}
