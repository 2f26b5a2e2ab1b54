package org.lpf4j.debug;

import org.lpf4j.Context;

import java.io.Serial;
import java.io.Serializable;

/**
 * What the debug decorators of one SPMD section share within one JVM: the first error reported
 * (which the section's failure carries, and which the processes of this JVM throw from their
 * next call), and the sections of successive {@code rehook}s. The cross-process checks share no
 * object: they exchange what they need through the engine (see {@link Mailbox}), so a section
 * object that crosses JVMs (a multi-process engine serialises the SPMD function) arrives as a
 * fresh one, joined by the processes of that JVM. Thread-safe.
 */
final class DebugSection implements Serializable {
    @Serial private static final long serialVersionUID = 2L;

    private volatile LpfProgrammingError firstError;
    private long rehookRound;
    private DebugSection rehookSection;

    DebugSection() {}

    /** Makes the decorator of one process; called first thing by each process. */
    DebugContext join(Context engine) { return new DebugContext(engine, this); }

    /** Records a report; the first one is what every process's failure carries. */
    void record(LpfProgrammingError e) {
        synchronized (this) {
            if (firstError == null) firstError = e;
        }
    }

    /** @return the first report of this section, or {@code null} */
    LpfProgrammingError firstError() { return firstError; }

    /** @return the section of the {@code round}-th rehook (the first caller makes it) */
    synchronized DebugSection rehook(long round) {
        if (round > rehookRound) {
            rehookRound = round;
            rehookSection = new DebugSection();
        }
        return rehookSection;
    }

    @Serial
    private Object writeReplace() { return new Copy(); }

    /** What a section becomes in another JVM: a fresh one (the reports of this JVM stay here). */
    private record Copy() implements Serializable {
        @Serial private static final long serialVersionUID = 1L;

        @Serial
        private Object readResolve() { return new DebugSection(); }
    }
}
