package org.lpf4j.debug;

import org.lpf4j.spi.kit.RequestChecks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the target of a superstep's requests checks, once it knows every request aimed at it: that
 * the slot each names is registered here, active and large enough; that its message queue holds
 * them; and that no request writes memory of this process that another reads. The first failure
 * in that order is the report. O(p + n log n) for n requests touching this process's memory.
 */
final class IncomingChecks {
    /** Makes a report (not yet recorded) in the name of the process that made the call. */
    @FunctionalInterface
    interface Reports {
        LpfProgrammingError candidate(int origin, Check check, String call, String site, String problem);
    }

    private final int pid;
    private final Map<Integer, SlotInfo> globalsById;
    private final List<Request> requests;
    private final Reports reports;

    /**
     * @param pid         this process
     * @param globalsById this process's global slots by id (read at each check)
     * @param requests    this process's own requests of the superstep (read at each check)
     * @param reports     how to word a report
     */
    IncomingChecks(int pid, Map<Integer, SlotInfo> globalsById, List<Request> requests, Reports reports) {
        this.pid = pid;
        this.globalsById = globalsById;
        this.requests = requests;
        this.reports = reports;
    }

    /**
     * @param incoming      every request aimed at this process this superstep
     * @param step          the completed user supersteps (a slot registered in this one is not active yet)
     * @param queueCapacity this process's message queue capacity
     * @return the first failure, in the order they are reported; {@code null} if all pass
     */
    LpfProgrammingError check(List<Incoming> incoming, long step, long queueCapacity) {
        for (Incoming in : incoming) {
            LpfProgrammingError e = checkRemoteArea(in, step);
            if (e != null) return e;
        }
        LpfProgrammingError e = checkCapacity(incoming, queueCapacity);
        return e != null ? e : checkConflictsOnMyMemory(incoming);
    }

    /** The remote side of a request aimed at this process: registered, active, large enough. */
    private LpfProgrammingError checkRemoteArea(Incoming in, long step) {
        Request r = in.request();
        SlotInfo info = globalsById.get(in.slotId());
        String role = r.put ? "destination" : "source";
        if (info == null) {
            return reports.candidate(r.origin, Check.BAD_SLOT, r.call(), r.site, in.slotName() + " is not registered at pid " + pid);
        }
        if (info.activeFrom > step) {
            return reports.candidate(r.origin, Check.INACTIVE_SLOT, r.call(), r.site, "pid " + pid + " registered " + in.slotName()
                    + " at " + info.site + " in this superstep; it is usable only after the next sync");
        }
        long registered = info.segment.byteSize();
        if (r.remoteOffset > registered - r.size) {
            return reports.candidate(r.origin, Check.OUT_OF_BOUNDS, r.call(), r.site, role + " area "
                    + RequestChecks.area(r.remoteOffset, r.size) + " exceeds the " + registered + " bytes pid " + pid
                    + " registered for " + in.slotName() + " (at " + info.site + ")");
        }
        return null;
    }

    /** Each put or get also takes a queue entry at its target: this process counts what targets it. */
    private LpfProgrammingError checkCapacity(List<Incoming> incoming, long queueCapacity) {
        if (incoming.size() <= queueCapacity) return null;
        Request last = incoming.get((int) queueCapacity).request();
        return reports.candidate(last.origin, Check.QUEUE_CAPACITY, last.call(), last.site, "pid " + pid + " is the target of "
                + incoming.size() + " requests this superstep but its message queue holds " + queueCapacity
                + " (a put or get takes an entry at its origin and at its target): "
                + incoming.stream().map(i -> i.request().brief()).toList());
    }

    /**
     * The areas of this process's memory that requests of this superstep write (puts to it, its
     * own gets) must not overlap the areas requests read (its own puts, gets from it). Sorts the
     * n areas by address and sweeps them once.
     */
    private LpfProgrammingError checkConflictsOnMyMemory(List<Incoming> incoming) {
        List<Area> areas = new ArrayList<>();
        for (Request r : requests) {
            if (r.size > 0) areas.add(new Area(r, !r.put, r.localArea));
        }
        for (Incoming in : incoming) {
            Request r = in.request();
            if (r.size == 0) continue;
            SlotInfo info = globalsById.get(in.slotId());
            areas.add(new Area(r, r.put, info.segment.asSlice(r.remoteOffset, r.size)));
        }
        Area[] conflict = Area.findConflict(areas);
        if (conflict == null) return null;
        Request wr = conflict[0].request(), rd = conflict[1].request();
        Request mine = rd.origin == pid ? rd : wr;
        return reports.candidate(mine.origin, Check.READ_WRITE_CONFLICT, mine.call(), mine.site, "in this superstep " + wr.brief()
                + " writes memory of pid " + pid + " that " + rd.brief() + " reads (" + wr.call() + " vs "
                + rd.call() + "); a source must not be another request's destination");
    }
}
