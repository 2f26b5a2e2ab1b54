package org.lpf4j.debug;

import org.lpf4j.Context;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The checks of a superstep that need the whole job, at one process of a debug section: the
 * layer's own exchange with the other processes through the engine ({@link Mailbox}), opened
 * once per section, and what {@link DebugContext} learns through it at each sync and at the end
 * of the SPMD function (see {@link #check}). A section of one process checks its requests here
 * too, with no exchange.
 *
 * <p>Cost per check: one engine sync (phase A) when no process has requests or a report; else
 * two (A and the verdict; one more for phase B, for the comparison of collective calls, for the
 * verdict's text when some process reports, and per growth of the mailbox), and O(p + n log n)
 * work for the n requests that touch this process's memory ({@link Debug} has the scheme).
 * Allocates the descriptors and lists (the debug layer is not on the hot path). Used by its
 * process's thread only.
 */
final class SyncChecks {
    /** What a process is doing when it takes part in an exchange. */
    static final long SYNC = 1, END = 2;

    private final int pid, nprocs;
    /** This process's requests of the superstep, all and by target pid (read at each check). */
    private final List<Request> requests;
    private final List<Request>[] requestsTo;
    /** This superstep's global register/deregister calls, with sites and without (read at each check). */
    private final List<String> collectiveCalls, collectiveKeys;
    private final IncomingChecks.Reports reports;
    private final DebugSection section;
    /** An engine sync of the layer's own (its failure translated as the debug layer's). */
    private final Runnable layerSync;
    /** The target's checks of the requests aimed at this process. */
    private final IncomingChecks incomingChecks;
    /** The layer's exchange with the other processes; {@code null} with one process (or before {@link #open}). */
    private Mailbox mailbox;
    /** The most requests aimed at this process in one superstep. */
    private long incomingHigh;

    /**
     * @param globalsById this process's global slots by id (read at each check)
     * @param reports     how to word a report (not yet recorded)
     * @param section     where a report is recorded
     */
    SyncChecks(int pid, int nprocs, List<Request> requests, List<Request>[] requestsTo, List<String> collectiveCalls,
               List<String> collectiveKeys, Map<Integer, SlotInfo> globalsById, IncomingChecks.Reports reports,
               DebugSection section, Runnable layerSync) {
        this.pid = pid;
        this.nprocs = nprocs;
        this.requests = requests;
        this.requestsTo = requestsTo;
        this.collectiveCalls = collectiveCalls;
        this.collectiveKeys = collectiveKeys;
        this.reports = reports;
        this.section = section;
        this.layerSync = layerSync;
        this.incomingChecks = new IncomingChecks(pid, globalsById, requests, reports);
    }

    /** @return whether the layer's exchange is open (a section of more than one process, started) */
    boolean isOpen() { return mailbox != null; }

    /** Opens the layer's exchange: collective, after the engine's capacities include the layer's ({@link Mailbox}). */
    void open(Context engine) { mailbox = new Mailbox(engine); }

    /** Closes the layer's exchange (the mailbox's slot is deregistered in the engine). */
    void close() {
        mailbox.release();
        mailbox = null;
    }

    /** @return the most requests aimed at this process in one superstep so far */
    long incomingHigh() { return incomingHigh; }

    private LpfProgrammingError recorded(LpfProgrammingError e) {
        section.record(e);
        return e;
    }

    /**
     * The checks that need the whole job, made the same way on every engine: an exchange through
     * the engine's public API (see {@link Mailbox}). Phase A ({@link Outgoing}): each process puts
     * to every process a record (what it is doing, how many requests it has for that process, a
     * hash of its collective calls, whether it found an error itself) with the descriptors of
     * those requests beside it if they fit, else where they are; engine sync. Then, from what all
     * records say ({@link Census}), one of: the unequal syncs named; the collective calls compared;
     * or phase B, only if some descriptors did not fit (each process gets them; engine sync), and
     * each process checks the requests aimed at it against its own memory ({@link IncomingChecks}).
     * Last, the verdict: every process learns the report of the lowest pid that has one, and all
     * throw it. A bad request so never reaches the engine, and no process is left waiting.
     *
     * @param kind       what this process is doing: {@link #SYNC} or {@link #END}
     * @param local      the report this process found on its own, or null
     * @param step       the completed user supersteps
     * @param queueLimit the queue capacity incoming requests are checked against ({@link Long#MAX_VALUE}: none)
     * @return whether any process has requests this superstep (else the real superstep is not needed)
     * @throws LpfProgrammingError the report of the lowest pid that has one, at every process
     */
    boolean check(long kind, String call, String site, LpfProgrammingError local, long step, long queueLimit) {
        boolean sending = kind == SYNC;
        if (mailbox == null) { // one process: everything is here
            LpfProgrammingError e = local != null ? local : sending ? checkIncoming(incomingFromSelf(), step, queueLimit) : null;
            if (e != null) throw recorded(e);
            return sending && !requests.isEmpty();
        }
        Outgoing out = Outgoing.send(mailbox, pid, nprocs, kind, step, sending, requestsTo, requests.size(),
                collectiveCalls, collectiveKeys, local != null);
        layerSync.run();
        Census all = Census.read(mailbox, nprocs, SYNC);
        LpfProgrammingError mine = local;
        if (all.kindsDiffer()) {
            if (mine == null && pid == all.firstSyncing()) {
                mine = reports.candidate(pid, Check.UNEQUAL_SYNCS, call, site, "pid(s) " + all.returned() + " returned from the SPMD"
                        + " function instead of making this sync (superstep " + step + "); every process must make the"
                        + " same number of syncs");
            }
        } else if (!all.anyLocal() && all.collectiveReporter() >= 0) {
            mine = compareCollectiveCalls(call, site, out, all);
        } else if (!all.anyLocal() && all.total() > 0) {
            mine = checkIncoming(gatherIncoming(out, all), step, queueLimit);
        }
        if (all.needsVerdict()) {
            LpfProgrammingError verdict = verdict(mine);
            if (verdict != null) throw verdict;
        }
        return sending && all.total() > 0;
    }

    /**
     * The collective calls differ: the first process whose calls differ from process 0's fetches
     * process 0's and words the report (one engine sync, and another if the mailbox must grow).
     *
     * @return that report at that process, null at the others
     */
    private LpfProgrammingError compareCollectiveCalls(String call, String site, Outgoing out, Census all) {
        int reporter = all.collectiveReporter();
        long callsOf0 = mailbox.record(0, Mailbox.COLL_BYTES), inbox = out.free + all.maxOut();
        mailbox.ensure(inbox + callsOf0, layerSync);
        mailbox.write(out.callsAt, out.calls);
        if (pid == reporter) mailbox.fetch(0, mailbox.record(0, Mailbox.COLL_OFFSET), inbox, callsOf0);
        layerSync.run();
        if (pid != reporter) return null;
        return reports.candidate(pid, Check.COLLECTIVE_MISMATCH, call, site, "global register/deregister calls of this"
                + " superstep differ in order or number (they are collective: same calls, same order, on every"
                + " process): pid 0 made " + mailbox.readText(inbox, callsOf0) + ", pid " + pid + " made "
                + collectiveCalls);
    }

    /**
     * Every request aimed at this process: its own, and those the others described, read beside
     * their records or, in phase B (only if some did not fit there), fetched from their out areas.
     */
    private List<Incoming> gatherIncoming(Outgoing out, Census all) {
        long[] from = new long[nprocs];
        for (int q = 0; q < nprocs; q++) if (mailbox.record(q, Mailbox.DESC_OFFSET) < 0) from[q] = mailbox.inlineFrom(q);
        if (all.maxMaxTo() > mailbox.inlineBytes()) { // phase B: some descriptors did not fit beside their record
            long inbox = out.free + all.maxOut();
            mailbox.ensure(inbox + all.sumMaxTo(), layerSync);
            out.writeChunks(mailbox);
            long in = 0;
            for (int q = 0; q < nprocs; q++) {
                long bytes = mailbox.record(q, Mailbox.DESC_BYTES), offset = mailbox.record(q, Mailbox.DESC_OFFSET);
                if (q == pid || bytes == 0 || offset < 0) continue;
                from[q] = inbox + in;
                mailbox.fetch(q, offset, from[q], bytes);
                in += bytes;
            }
            layerSync.run();
        }
        List<Incoming> incoming = new ArrayList<>();
        for (int q = 0; q < nprocs; q++) {
            if (q == pid) incoming.addAll(incomingFromSelf());
            else Descriptors.decode(mailbox, from[q], mailbox.record(q, Mailbox.COUNT_TO), q, pid, incoming);
        }
        return incoming;
    }

    /**
     * Every process learns whether any found an error, and all throw the report of the lowest
     * pid that did (fetched from its mailbox): the same report everywhere, in the same sync. The
     * verdicts that came in stay zero until a process reports (the section then ends).
     *
     * @return that report, or {@code null} if no process has one
     */
    private LpfProgrammingError verdict(LpfProgrammingError mine) {
        byte[] text = mine == null ? new byte[0] : mine.getMessage().getBytes(StandardCharsets.UTF_8);
        // Only a process with a report sends (to everyone): without one, the verdict is an empty sync.
        if (mine != null) mailbox.sendVerdict(mine.check().ordinal(), text.length);
        layerSync.run();
        int reporter = -1;
        for (int q = 0; q < nprocs && reporter < 0; q++) if (mailbox.verdict(q, 0) != 0) reporter = q;
        if (reporter < 0) return null;
        long length = mailbox.verdict(reporter, 2), at = mailbox.freeStart();
        mailbox.ensure(at + length, layerSync);
        if (pid == reporter) mailbox.write(at, text);
        else mailbox.fetch(reporter, at, at, length);
        layerSync.run();
        LpfProgrammingError e = pid == reporter ? mine
                : new LpfProgrammingError(Check.values()[(int) mailbox.verdict(reporter, 1)], mailbox.readText(at, length), null);
        mailbox.clearVerdicts();
        return recorded(e);
    }

    /** This process's requests to itself, all a section of one process has. */
    private List<Incoming> incomingFromSelf() {
        List<Incoming> incoming = new ArrayList<>();
        for (Request r : requestsTo(pid)) incoming.add(new Incoming(r, r.remoteSlot.id(), r.remoteSlot.toString()));
        return incoming;
    }

    /** The target's checks of the requests aimed at it, in the order they are reported; {@code null} if all pass. */
    private LpfProgrammingError checkIncoming(List<Incoming> incoming, long step, long queueLimit) {
        incomingHigh = Math.max(incomingHigh, incoming.size());
        return incomingChecks.check(incoming, step, queueLimit);
    }

    /** @return this process's requests of the current superstep that target {@code target} */
    private List<Request> requestsTo(int target) {
        List<Request> list = requestsTo[target];
        return list != null ? list : List.of();
    }
}
