package org.lpf4j.superstep;

import org.lpf4j.FatalException;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.WireCounts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * How the section of a {@link SuperstepContext} ends, at one process: the end round (every
 * process learns every process's status, those that threw send their exception to pid 0), the
 * late round after a failure, the failure's description and the {@link FatalException} every
 * call throws after it; or the passed sync deadline, after which no collective can complete and
 * none is made.
 *
 * <p>Cost: nothing while the section runs; at its end one allreduce of 2p longs (two after a
 * failure) and one message per process that threw. Allocates there only (the status array, the
 * causes, the texts). Used by its process's thread only.
 */
final class SectionEnd implements AutoCloseable {
    /** A process's status in the end round. */
    static final long SYNCING = 0, RETURNED = 1, THREW = 2, REHOOKING = 3;

    private final Transport transport;
    private final WireCounts counts;
    private final CrossJvmObjects objects;
    private final Round round;
    private final int pid, nprocs;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment statuses;
    private boolean ended;
    /** Whether the section failed because processes did not reach a sync in time: its collectives can never complete. */
    private boolean deadlinePassed;
    /** What this context threw when the deadline passed (not a cause of its own at pid 0). */
    private FatalException deadlineFatal;
    private String failure;
    private final List<Throwable> causes = new ArrayList<>();

    /**
     * @param counts  where the rounds are counted (collectives)
     * @param objects how exceptions from other processes find their classes
     * @param round   the section's round, for the end round
     */
    SectionEnd(Transport transport, WireCounts counts, CrossJvmObjects objects, Round round, int pid, int nprocs) {
        this.transport = transport;
        this.counts = counts;
        this.objects = objects;
        this.round = round;
        this.pid = pid;
        this.nprocs = nprocs;
        this.statuses = arena.allocate(16L * nprocs);
    }

    /** @return whether the section ended (a process ended, or the deadline passed) */
    boolean ended() { return ended; }

    /** @return whether the section failed by its sync deadline (its collectives can never complete) */
    boolean deadlinePassed() { return deadlinePassed; }

    /**
     * Ends this process's part of the section: tells the others (unless the section already
     * ended) and takes part in the status round.
     *
     * @param threw     what the SPMD function threw, or null if it returned
     * @param superstep the process's superstep (the end round's)
     */
    void finish(Throwable threw, long superstep) {
        if (deadlinePassed) {
            if (pid == 0 && threw != null && threw != deadlineFatal) causes.add(threw); // a layered engine's own report
            return;
        }
        transport.beginRound(superstep);
        try {
            if (!ended) {
                round.round(Round.ENDING);
                round.drainEarly();
                endRound(threw == null ? RETURNED : THREW, threw);
                if (failure != null) lateRound(null); // everyone makes it after a failure
            } else if (failure != null) {
                lateRound(threw instanceof FatalException ? null : threw);
            }
        } catch (Transport.Stopped e) {
            passed(e);
            if (pid == 0 && threw != null && !(threw instanceof FatalException)) causes.add(threw);
        }
    }

    /**
     * The section failed by its sync deadline: no collective of it can complete any more, so no
     * end round follows; the reason names the processes that did not arrive.
     */
    void passed(Transport.Stopped e) {
        ended = true;
        deadlinePassed = true;
        failure = e.getMessage();
    }

    /** @return why the section failed by its sync deadline, or null if it did not */
    String deadlineFailure() { return deadlinePassed ? failure : null; }

    /** @return {@link #fatal} of {@code call}, kept as what this process threw when the deadline passed */
    FatalException deadlineFatal(String call) { return deadlineFatal = fatal(call); }

    /**
     * After a failed section every process ends with this round, so that what a process threw
     * after the failure (an assertion about the failure, say) still reaches pid 0 as a cause.
     */
    void lateRound(Throwable late) {
        statusRound(late != null ? THREW : RETURNED, late);
    }

    /** Everyone learns everyone's status; throwers send their exception to pid 0. */
    void endRound(long mine, Throwable threw) {
        ended = true;
        failure = describe(statusRound(mine, mine == THREW ? threw : null));
    }

    /**
     * One status round: an allreduce (max) of every process's status; {@code threw}, if not
     * null, goes to pid 0, which collects every thrower's exception as a cause.
     *
     * @return every process's status
     */
    private long[] statusRound(long mine, Throwable threw) {
        MemorySegment out = statuses.asSlice(0, 8L * nprocs), in = statuses.asSlice(8L * nprocs, 8L * nprocs);
        out.fill((byte) 0);
        out.setAtIndex(ValueLayout.JAVA_LONG, pid, mine);
        counts.collective();
        transport.allreduce(statuses, nprocs, Transport.Reduction.MAX);
        long[] status = in.toArray(ValueLayout.JAVA_LONG);
        if (threw != null) {
            if (pid == 0) causes.add(threw);
            else transport.sendMessage(Causes.bytes(threw, pid), 0);
        }
        if (pid == 0) {
            for (int q = 1; q < nprocs; q++) if (status[q] == THREW) causes.add(Causes.of(transport.receiveMessage(q), q, objects));
        }
        return status;
    }

    private static String describe(long[] status) {
        List<String> threw = new ArrayList<>(), syncing = new ArrayList<>(), rehooking = new ArrayList<>();
        for (int q = 0; q < status.length; q++) {
            if (status[q] == THREW) threw.add(Integer.toString(q));
            else if (status[q] == SYNCING) syncing.add(Integer.toString(q));
            else if (status[q] == REHOOKING) rehooking.add(Integer.toString(q));
        }
        if (threw.isEmpty() && syncing.isEmpty() && rehooking.isEmpty()) return null;
        if (!rehooking.isEmpty()) {
            return "pid " + String.join(", ", rehooking) + " called rehook while "
                    + (syncing.isEmpty() ? "" : "pid " + String.join(", ", syncing) + " called sync")
                    + (!syncing.isEmpty() && !threw.isEmpty() ? " and " : "")
                    + (threw.isEmpty() ? "" : "pid " + String.join(", ", threw) + " threw")
                    + (syncing.isEmpty() && threw.isEmpty() ? "the others had returned" : "");
        }
        StringBuilder b = new StringBuilder();
        if (!threw.isEmpty()) b.append("pid ").append(String.join(", ", threw)).append(" threw");
        if (!syncing.isEmpty()) {
            if (!b.isEmpty()) b.append("; ");
            b.append("pid ").append(String.join(", ", syncing)).append(" still called sync while ")
                    .append(threw.isEmpty() ? "the others had returned (a process returned early)" : "the others had ended");
        }
        return b.toString();
    }

    /** @return what {@code call} throws once the section ended: its failure, with the causes at pid 0 */
    FatalException fatal(String call) {
        return withCauses(call + " at pid " + pid + " of " + nprocs + ": the section failed: " + failure);
    }

    /**
     * @param call e.g. {@code "exec(p=4)"}
     * @return the failure of the ended section (with the causes on pid 0), or null if it ended well
     */
    FatalException outcome(String call) {
        return failure == null ? null : withCauses(call + " failed: " + failure);
    }

    /** @return a {@link FatalException} saying {@code what}, its cause the first of {@link #causes}, the others suppressed */
    private FatalException withCauses(String what) {
        Throwable first = causes.isEmpty() ? null : causes.get(0);
        FatalException e = new FatalException(what + (first != null ? ": " + first : ""), first);
        for (int i = 1; i < causes.size(); i++) e.addSuppressed(causes.get(i));
        return e;
    }

    /** Throws the section's failure if it ended. */
    void live(String call) {
        if (ended) throw fatal(call);
    }

    @Override
    public void close() { arena.close(); }
}
