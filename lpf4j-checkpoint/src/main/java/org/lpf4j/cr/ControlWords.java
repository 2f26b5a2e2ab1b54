package org.lpf4j.cr;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;

/**
 * The registered words through which the processes of a {@link Checkpoints} object agree, and the
 * puts that move them. Layout: [{@link #DECISION}] process 0's decision (the seq to take, 0: none;
 * in resume the candidate, negative: refused); [{@link #SETTLED}] at checkpoint points the highest
 * seq process 0 has settled (committed or given up), in resume ([{@link #ACCEPTED}]) the accepted
 * seq (or who refused); [{@link #good}(q)] the last part q wrote (in resume: q's verdict);
 * [{@link #failed}(q)] the lowest seq above the settled one whose part q failed to write (0: none).
 * Cost: 16 + 16 p bytes, one register slot; a broadcast is p − 1 puts of 16 bytes.
 */
final class ControlWords {
    static final int DECISION = 0, ACCEPTED = 1, SETTLED = 1;

    final long[] words;
    final Memslot slot;
    private final Context ctx;

    private ControlWords(Context ctx, long[] words, Memslot slot) {
        this.ctx = ctx;
        this.words = words;
        this.slot = slot;
    }

    /**
     * Registers the words of {@code ctx}'s processes (a global registration: takes effect at the next sync).
     *
     * @throws IllegalStateException if the register is full, saying what to reserve
     */
    static ControlWords register(Context ctx) {
        int pid = ctx.pid(), p = ctx.nprocs();
        long[] words = new long[2 + 2 * p];
        try {
            return new ControlWords(ctx, words, ctx.registerGlobal(MemorySegment.ofArray(words)));
        } catch (IllegalStateException e) {
            throw new IllegalStateException("Checkpoints.init at pid " + pid + " of " + p + ": cannot register its "
                    + "control slot: " + e.getMessage() + ". Checkpoints.init needs " + Checkpoints.REGISTER_SLOTS
                    + " free register slot and " + Checkpoints.queueEntries(p) + " queue entries beyond the program's own: "
                    + "ctx.resizeMemoryRegister(own slots + " + Checkpoints.REGISTER_SLOTS + ") and ctx.resizeMessageQueue(own "
                    + "requests + " + Checkpoints.queueEntries(p) + "), then ctx.sync(), before Checkpoints.init", e);
        }
    }

    /** @return the index of process q's report of its last good write (in resume: its verdict) */
    static int good(int q) { return 2 + 2 * q; }

    /** @return the index of process q's report of its lowest failed write */
    static int failed(int q) { return 3 + 2 * q; }

    /** Process 0: sends words 0 and 1 to every other process (arriving at the next sync). */
    void broadcastDecision() {
        for (int q = 1; q < ctx.nprocs(); q++) ctx.put(slot, 0, q, slot, 0, 16);
    }

    /** Sends this process's report, {@code bytes} from {@link #good}(pid) on, to process 0 (at the next sync). */
    void report(int bytes) {
        long offset = 8L * good(ctx.pid());
        ctx.put(slot, offset, 0, slot, offset, bytes);
    }
}
