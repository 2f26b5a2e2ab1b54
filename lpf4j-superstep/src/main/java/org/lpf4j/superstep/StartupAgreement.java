package org.lpf4j.superstep;

import org.lpf4j.spi.Agreement;
import org.lpf4j.spi.Components;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The start-up agreement of a multi-JVM engine, written once: before a job's first section every
 * rank publishes one text ({@link #text}: the modules it chose, the settings every rank must
 * share, and optionally the native library it loaded), the engine's own collective brings every
 * rank's text to every rank (an all-to-all, a boot fence, ...), and {@link #check} refuses a job
 * whose ranks differ, naming every rank's value. A section whose members were not started by the
 * engine (a hook over a program's communicator) compares a hash of the settings instead, in one
 * allreduce ({@link #sameEverywhere}). Costs a few string operations per rank, beside the
 * engine's collective.
 */
public final class StartupAgreement {
    private StartupAgreement() {}

    /**
     * @param settings the settings every rank must share, on one line
     * @param library  the native library this rank loaded, on one line or more, or null for none
     * @return this rank's text: the installed modules' choices, the settings, the library
     */
    public static String text(String settings, String library) {
        return Agreement.encode(Agreement.choices(Components.installed())) + "\n" + settings
                + (library == null ? "" : "\n" + library);
    }

    /**
     * Refuses a job whose ranks chose different modules, loaded different libraries or resolved
     * different settings.
     *
     * @param byRank    every rank's {@link #text}, in rank order
     * @param job       what the job is, for the messages (e.g. {@code "MPI job"})
     * @param libraries what the libraries are, for the message (e.g. {@code "MPI libraries"})
     * @throws IllegalStateException listing every rank's value of what differs
     */
    public static void check(List<String> byRank, String job, String libraries) {
        List<List<Agreement.Choice>> choices = new ArrayList<>();
        List<String> settings = new ArrayList<>(), loaded = new ArrayList<>();
        for (String t : byRank) {
            int cut = t.indexOf('\n'), cut2 = t.indexOf('\n', cut + 1);
            choices.add(Agreement.decode(t.substring(0, cut)));
            settings.add(cut2 < 0 ? t.substring(cut + 1) : t.substring(cut + 1, cut2));
            loaded.add(cut2 < 0 ? "" : t.substring(cut2 + 1));
        }
        Agreement.check(choices);
        refuseIfTheyDiffer(loaded, "the processes of this " + job + " loaded different " + libraries + ":");
        refuseIfTheyDiffer(settings, "the processes of this " + job + " have different engine settings (give every rank the same):");
    }

    /** Throws, listing every pid's value after {@code what}, unless all pids have the same value. */
    private static void refuseIfTheyDiffer(List<String> byPid, String what) {
        if (byPid.stream().distinct().count() <= 1) return;
        StringBuilder b = new StringBuilder(what);
        for (int q = 0; q < byPid.size(); q++) b.append(" [pid ").append(q).append(": ").append(byPid.get(q)).append(']');
        throw new IllegalStateException(b.toString());
    }

    /** The engine's allreduce (MAX) of {@code words} longs from {@code in} into {@code out}, collective. */
    @FunctionalInterface
    public interface MaxOfLongs {
        /** @param in this rank's longs @param out their maxima over every rank @param words how many */
        void max(MemorySegment in, MemorySegment out, int words);
    }

    /**
     * Collective: whether every member has the same {@code settings}, by one allreduce of two longs
     * (the hash and its negation: equal maxima mean equal hashes).
     *
     * @param settings this member's settings
     * @param max      the engine's allreduce
     * @return whether every member's hash is this one's (the same answer at every member)
     */
    public static boolean sameEverywhere(String settings, MaxOfLongs max) {
        long h = settings.hashCode();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment in = a.allocate(16, 8), out = a.allocate(16, 8);
            in.set(ValueLayout.JAVA_LONG, 0, h);
            in.set(ValueLayout.JAVA_LONG, 8, -h);
            max.max(in, out, 2);
            return out.get(ValueLayout.JAVA_LONG, 0) == -out.get(ValueLayout.JAVA_LONG, 8);
        }
    }
}
