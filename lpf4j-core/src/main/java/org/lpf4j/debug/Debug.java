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
 * The decorator checks each call locally at once, and defers the requests. At {@code sync} the
 * processes exchange what the cross-process checks need through the wrapped engine itself, with
 * the public API only (as C LPF's debug layer does over MPI), so the checks see the whole job on
 * every engine, whichever processes share a JVM: each process has one global slot of the layer
 * (its mailbox, registered when the section starts; the engine's register and queue hold the
 * user's capacities plus what the layer needs, while the checks use the user's). Phase A: every
 * process puts to every process a small record (a hash of its global register/deregister calls,
 * whether it is in a sync or has returned from its SPMD function, whether it found an error
 * itself, how many requests it has for that process) with the descriptors of those requests
 * beside it (kind, remote slot, offset, size, the origin's call and site) when they fit; engine
 * sync. Phase B, only when some did not fit: each process gets the rest from the origins' slots;
 * engine sync. Each process then checks the requests aimed at it against its own memory: the
 * remote area registered, active and large enough, its queue capacity, read/write conflicts.
 * Then a verdict (an empty engine sync unless some process reports): every process learns the
 * report of the lowest pid that has one, and all throw it from this sync; only when there is
 * none are the requests handed to the engine, and the real sync runs. A bad request so never reaches the
 * engine, and no process is left waiting. When the SPMD function returns, the process takes part
 * once more (so a sync that not every process makes is reported, naming its line), then the
 * layer deregisters its slot. A sync with no request anywhere costs one engine sync (phase A);
 * one with requests three (A, the verdict, the real sync; four with phase B), plus a stack walk per call and a
 * copy of every put's source and get's destination (to see whether the program writes them
 * before the sync); docs/performance.md has the figures. A section of one process exchanges
 * nothing. The checks at a sync cost each process O(p + n log n) for the n requests that touch
 * its memory (the read/write conflict check sorts their areas by address and sweeps them once).
 *
 * <h2>Limits</h2>
 * Reads by plain code (a get's destination read before the sync) cannot be seen; only reads by
 * other requests are. In a section of more than one process the layer's slot takes one global
 * slot id of the engine, so the ids of the user's global slots differ from a run without the
 * layer (they still agree on every process).
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
