package org.lpf4j.debug;

import java.util.ArrayList;
import java.util.List;

/**
 * What every process's record said after phase A of the debug layer's exchange: who syncs and who
 * returned, whether any found an error itself, the requests in all, the sizes of the out areas
 * and of the descriptors, and the first process whose collective calls differ from process 0's.
 * Every process reads the same records, so every process takes the same decisions from them. O(p).
 *
 * @param anyLocal           whether some process found an error itself
 * @param total              the requests of all processes this superstep
 * @param maxOut             the largest out area
 * @param sumMaxTo           the sum over processes of the most descriptor bytes one sends to one target
 * @param maxMaxTo           the largest of those
 * @param collectiveReporter the lowest pid whose collective calls differ from process 0's, -1 if none
 * @param firstSyncing       the lowest pid that is in a sync, -1 if none
 * @param returned           the pids that returned from the SPMD function instead
 */
record Census(boolean anyLocal, long total, long maxOut, long sumMaxTo, long maxMaxTo, int collectiveReporter,
              int firstSyncing, List<Integer> returned) {

    /** @param syncing the record kind of a process in a sync */
    static Census read(Mailbox mailbox, int nprocs, long syncing) {
        boolean anyLocal = false;
        long total = 0, maxOut = 0, sumMaxTo = 0, maxMaxTo = 0;
        int collectiveReporter = -1, firstSyncing = -1;
        List<Integer> returned = new ArrayList<>();
        for (int q = 0; q < nprocs; q++) {
            if (mailbox.record(q, Mailbox.KIND) == syncing) {
                if (firstSyncing < 0) firstSyncing = q;
            } else {
                returned.add(q);
            }
            anyLocal |= mailbox.record(q, Mailbox.LOCAL_REPORT) != 0;
            total += mailbox.record(q, Mailbox.TOTAL);
            maxOut = Math.max(maxOut, mailbox.record(q, Mailbox.OUT_BYTES));
            sumMaxTo += mailbox.record(q, Mailbox.MAX_TO);
            maxMaxTo = Math.max(maxMaxTo, mailbox.record(q, Mailbox.MAX_TO));
            if (collectiveReporter < 0 && (mailbox.record(q, Mailbox.COLL_HASH) != mailbox.record(0, Mailbox.COLL_HASH)
                    || mailbox.record(q, Mailbox.COLL_COUNT) != mailbox.record(0, Mailbox.COLL_COUNT))) {
                collectiveReporter = q;
            }
        }
        return new Census(anyLocal, total, maxOut, sumMaxTo, maxMaxTo, collectiveReporter, firstSyncing, returned);
    }

    /** @return whether some processes sync while others returned (the syncs are unequal) */
    boolean kindsDiffer() { return firstSyncing >= 0 && !returned.isEmpty(); }

    /** @return whether the processes must agree on a verdict (someone has or may find an error) */
    boolean needsVerdict() { return kindsDiffer() || anyLocal || collectiveReporter >= 0 || total > 0; }
}
