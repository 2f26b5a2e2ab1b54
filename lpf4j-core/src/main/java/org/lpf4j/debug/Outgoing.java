package org.lpf4j.debug;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What one process tells every process in phase A of the debug layer's exchange at a sync (or at
 * the end of the SPMD function), and what it keeps ready for the later phases: a record per
 * target (see {@link Mailbox}'s fields) with the descriptors of this process's requests for that
 * target beside it when they fit, else their place in this process's out area, where they wait
 * for phase B; and this superstep's collective calls as text, in case the processes' calls differ.
 * Allocates the encoded descriptors (the debug layer is not on the hot path).
 */
final class Outgoing {
    /** Where this process's out area starts. */
    final long free;
    /** The calls' text and where it waits in the out area. */
    final byte[] calls;
    final long callsAt;
    /** Encoded descriptors per target (null: none) and where each waits in the out area (-1: sent inline). */
    private final byte[][] chunks;
    private final long[] chunkAt;

    private Outgoing(long free, byte[] calls, long callsAt, byte[][] chunks, long[] chunkAt) {
        this.free = free;
        this.calls = calls;
        this.callsAt = callsAt;
        this.chunks = chunks;
        this.chunkAt = chunkAt;
    }

    /**
     * Sends this process's records (the puts; they arrive at the next engine sync).
     *
     * @param kind            what this process is doing ({@link SyncChecks#SYNC} or {@link SyncChecks#END})
     * @param sending         whether its requests count (at a sync; at the end there are none)
     * @param requestsTo      this process's requests by target
     * @param collectiveCalls its global register/deregister calls of this superstep, with sites
     * @param collectiveKeys  the same without sites, hashed for the comparison
     * @param localReport     whether it found an error itself
     */
    static Outgoing send(Mailbox mailbox, int pid, int nprocs, long kind, long step, boolean sending,
                         List<Request>[] requestsTo, int total, List<String> collectiveCalls, List<String> collectiveKeys,
                         boolean localReport) {
        long free = mailbox.freeStart(), at = free, maxTo = 0;
        byte[][] chunks = new byte[nprocs][];
        long[] chunkAt = new long[nprocs], inlineSent = new long[nprocs];
        for (int t = 0; t < nprocs; t++) {
            if (t == pid || !sending || requestsTo[t] == null || requestsTo[t].isEmpty()) continue;
            chunks[t] = Descriptors.encode(requestsTo[t]);
            maxTo = Math.max(maxTo, chunks[t].length);
            if (chunks[t].length <= mailbox.inlineBytes()) { // they travel with the record: no phase B for them
                mailbox.setInline(t, chunks[t]);
                inlineSent[t] = chunks[t].length;
                chunkAt[t] = -1;
            } else {
                chunkAt[t] = at;
                at += chunks[t].length;
            }
        }
        byte[] calls = collectiveCalls.toString().getBytes(StandardCharsets.UTF_8);
        long callsAt = at;
        at += Descriptors.padded(calls.length);
        long hash = Descriptors.hash(collectiveKeys);
        for (int t = 0; t < nprocs; t++) {
            mailbox.setRecord(t, Mailbox.KIND, kind);
            mailbox.setRecord(t, Mailbox.STEP, step);
            mailbox.setRecord(t, Mailbox.COUNT_TO, sending && requestsTo[t] != null ? requestsTo[t].size() : 0);
            mailbox.setRecord(t, Mailbox.DESC_OFFSET, chunkAt[t]);
            mailbox.setRecord(t, Mailbox.DESC_BYTES, chunks[t] == null ? 0 : chunks[t].length);
            mailbox.setRecord(t, Mailbox.OUT_BYTES, at - free);
            mailbox.setRecord(t, Mailbox.MAX_TO, maxTo);
            mailbox.setRecord(t, Mailbox.TOTAL, sending ? total : 0);
            mailbox.setRecord(t, Mailbox.COLL_HASH, hash);
            mailbox.setRecord(t, Mailbox.COLL_COUNT, collectiveKeys.size());
            mailbox.setRecord(t, Mailbox.COLL_OFFSET, callsAt);
            mailbox.setRecord(t, Mailbox.COLL_BYTES, calls.length);
            mailbox.setRecord(t, Mailbox.LOCAL_REPORT, localReport ? 1 : 0);
        }
        mailbox.sendRecords(inlineSent);
        return new Outgoing(free, calls, callsAt, chunks, chunkAt);
    }

    /** Phase B: puts the descriptors that did not fit beside their records into the out area. */
    void writeChunks(Mailbox mailbox) {
        for (int t = 0; t < chunks.length; t++) if (chunks[t] != null && chunkAt[t] >= 0) mailbox.write(chunkAt[t], chunks[t]);
    }
}
