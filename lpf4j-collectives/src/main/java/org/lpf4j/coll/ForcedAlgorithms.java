package org.lpf4j.coll;

import org.lpf4j.spi.CollModule;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;

import java.util.Locale;

/**
 * The per-operation algorithm the user forced through the selected {@code coll} module (for the
 * built-in {@code costmodel} module: the parameters {@code lpf.coll.costmodel.<operation>}),
 * read once when a {@link Collectives} object is created. {@link Algorithm#AUTO} where nothing
 * is forced. Immutable; {@link #of} is an array read.
 */
final class ForcedAlgorithms {
    /** Index of broadcast in {@link #of}. */
    static final int BROADCAST = 0;
    /** Index of reduce. */
    static final int REDUCE = 1;
    /** Index of allreduce. */
    static final int ALLREDUCE = 2;
    /** Index of combine. */
    static final int COMBINE = 3;
    /** Index of allcombine. */
    static final int ALLCOMBINE = 4;
    /** The operations that have several algorithms, by index ({@link CollModule#WITH_VARIANTS}, the one list). */
    static final String[] OPERATIONS = CollModule.WITH_VARIANTS.toArray(String[]::new);

    static {
        if (!OPERATIONS[BROADCAST].equals("broadcast") || !OPERATIONS[REDUCE].equals("reduce")
                || !OPERATIONS[ALLREDUCE].equals("allreduce") || !OPERATIONS[COMBINE].equals("combine")
                || !OPERATIONS[ALLCOMBINE].equals("allcombine")) {
            throw new AssertionError("CollModule.WITH_VARIANTS changed order: " + CollModule.WITH_VARIANTS);
        }
    }

    private static final ForcedAlgorithms NONE = new ForcedAlgorithms(new Algorithm[OPERATIONS.length], null);

    private final Algorithm[] forced;
    /** The selected coll module, asked to choose when nothing is forced; null on a strict subset. */
    private final CollModule module;

    private ForcedAlgorithms(Algorithm[] forced, CollModule module) {
        for (int i = 0; i < forced.length; i++) if (forced[i] == null) forced[i] = Algorithm.AUTO;
        this.forced = forced;
        this.module = module;
    }

    /** @return the selected coll module (null for a strict subset of the processes: one algorithm only) */
    CollModule module() { return module; }

    /**
     * Reads the selected coll module's forced algorithm of every operation that has variants.
     * Costs a module selection and one parameter resolution per operation.
     *
     * @param everyone whether the object's members are all processes; a strict subset only has
     *                 the one-superstep algorithm, so nothing is read and nothing forced
     * @param call     the creating call and pid, for error messages
     * @return the choices
     * @throws IllegalArgumentException if a setting is invalid, or names an algorithm this library
     *                                  does not have
     */
    static ForcedAlgorithms read(boolean everyone, String call) {
        if (!everyone) return NONE;
        CollModule module = Components.installed().select(Framework.COLL, CollModule.class);
        Algorithm[] forced = new Algorithm[OPERATIONS.length];
        for (int i = 0; i < OPERATIONS.length; i++) {
            String name = module.forced(OPERATIONS[i]);
            forced[i] = parse(name, "coll module " + module.name() + " forces " + OPERATIONS[i] + " = '" + name
                    + "' (" + call + ")");
        }
        return new ForcedAlgorithms(forced, module);
    }

    /**
     * @param name  an algorithm name of {@link CollModule#ALGORITHMS} or {@link CollModule#AUTO}
     * @param where what to name in the error
     * @return the matching constant
     * @throws IllegalArgumentException if there is none
     */
    static Algorithm parse(String name, String where) {
        for (Algorithm a : Algorithm.values()) if (a.name().toLowerCase(Locale.ROOT).equals(name)) return a;
        throw new IllegalArgumentException(where + ": no such algorithm; valid: " + CollModule.AUTO + ", "
                + String.join(", ", CollModule.ALGORITHMS));
    }

    /**
     * @param operation one of the index constants
     * @return the forced variant, or {@link Algorithm#AUTO}
     */
    Algorithm of(int operation) { return forced[operation]; }
}
