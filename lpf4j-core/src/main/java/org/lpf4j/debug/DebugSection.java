package org.lpf4j.debug;

import org.lpf4j.Context;

import java.io.Serial;
import java.io.Serializable;

/**
 * What the debug decorators of one SPMD section share: each process's {@link DebugContext} (the
 * "board" the cross-process checks read at sync), the first error reported, and the sections of
 * successive {@code rehook}s.
 *
 * <p>The board works when all processes of a section live in one JVM (threads engine). A section
 * object that crosses JVMs (a multi-process engine serialises the SPMD function) arrives
 * <em>detached</em>: each process sees only itself, so the cross-process checks (remote bounds,
 * queue capacity at the target, collective order, conflicts with remote requests) are skipped
 * and the local checks remain. Sections of {@code hook} are detached as well (their members
 * share no object). Thread-safe.
 */
final class DebugSection implements Serializable {
    @Serial private static final long serialVersionUID = 1L;

    private final boolean shared;
    private DebugContext[] members;
    private volatile LpfProgrammingError firstError;
    private long rehookRound;
    private DebugSection rehookSection;

    /** @param shared whether the decorators of all processes will join this one object */
    DebugSection(boolean shared) { this.shared = shared; }

    /** @return whether the cross-process checks can see every process */
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
    private Object writeReplace() { return new Detached(); }

    /** What a section becomes in another JVM: a fresh, unshared one. */
    private record Detached() implements Serializable {
        @Serial private static final long serialVersionUID = 1L;

        @Serial
        private Object readResolve() { return new DebugSection(false); }
    }
}
