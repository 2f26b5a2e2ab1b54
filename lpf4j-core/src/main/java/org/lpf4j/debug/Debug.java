package org.lpf4j.debug;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Init;

/**
 * The checking layer: wraps any engine's contexts in a decorator that detects what the LPF
 * specification calls programming errors (see {@link Check}) and reports each as an
 * {@link LpfProgrammingError} naming the user's file and line, the pid and the values.
 * {@link org.lpf4j.Lpf#root()} applies it when the parameter {@code lpf.debug} is true
 * ({@code lpf run --debug}); with it off, nothing is wrapped and nothing costs.
 *
 * <h2>How it works</h2>
 * The decorator checks each call locally at once, and defers the requests: at {@code sync} it
 * first makes an empty engine sync (a barrier: every process's requests and registrations are
 * then visible to the others through the section's shared state), checks what only the whole
 * superstep shows, then hands the requests to the engine and syncs again. Debug mode is so
 * about twice as slow per superstep, plus a stack walk per call and a copy of every put's source
 * and get's destination (to see whether the program writes them before the sync). The checks at
 * a sync cost each process O(p + n log n) for the n requests that touch its memory (the
 * read/write conflict check sorts their areas by address and sweeps them once).
 *
 * <h2>Limits</h2>
 * Reads by plain code (a get's destination read before the sync) cannot be seen; only reads by
 * other requests are. Cross-process checks see the processes that share the checker's JVM
 * (all of them on the threads engine; a node's on the hybrid engine; itself on the MPI engine),
 * while every process of an {@code exec} makes the same syncs in every JVM (see
 * {@code DebugSection}).
 */
public final class Debug {
    private Debug() {}

    /**
     * @param root an engine's root context
     * @return the same context, checked
     */
    public static Context wrap(Context root) {
        if (root instanceof DebugContext) return root;
        return new DebugSection().join(root);
    }

    /**
     * @param init an engine's handle on an existing parallel environment
     * @return the same, running the SPMD function over checked contexts
     */
    public static Init wrap(Init init) {
        return (spmd, args) -> {
            DebugSection section = new DebugSection();
            try {
                init.hook(new DebugSpmd(spmd, section), args);
            } catch (FatalException e) {
                throw DebugContext.carrying(section, e);
            }
        };
    }
}
