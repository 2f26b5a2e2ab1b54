package org.lpf4j.tools.bench;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.bsmp.Bsmp;
import org.lpf4j.bsmp.BsmpMessage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * The BSMP rows of {@code lpf bench} (issue 4): messages of 64-byte payloads sent all-to-all
 * ({@value #PER_PAIR} per ordered pair of processes, self included, per step) through
 * {@link Bsmp} — send, sync (WRITE → READ), move every message, sync (READ → WRITE) — beside
 * the same number of raw 64-byte puts + one sync, at p = 2..4. Both rows count messages sent per
 * process per second (millions).
 */
public final class BsmpWorkloads {
    private BsmpWorkloads() {}

    /** Messages from each process to each process per step. */
    public static final int PER_PAIR = 16;
    /** Payload bytes per message. */
    public static final int PAYLOAD = 64;
    /** The BSMP row. */
    public static final String BSMP = "BSMP 64 B msgs all-to-all (16/pair): send, sync, move all, sync";
    /** The raw put row. */
    public static final String RAW_PUT = "64 B puts all-to-all (16/pair) + sync (raw put rate)";

    /** @return the BSMP row and the raw put row */
    public static List<Workload> rows() {
        return List.of(bsmp(), rawPut());
    }

    /** @return BSMP message rate / raw put rate */
    public static List<SideBySide.Ratio> ratios() {
        return List.of(new SideBySide.Ratio("BSMP / raw put (message rate)", BSMP, RAW_PUT));
    }

    /** @return the BSMP exchange; the tag (8 bytes) directly precedes the payload in one local slot */
    static Workload bsmp() { return new BsmpAllToAll(); }

    private static final class BsmpAllToAll extends AllToAll {
        private static final long serialVersionUID = 1L;

        BsmpAllToAll() { super(BSMP, Bsmp.REGISTER_ENTRIES + 1); }

        @Override public long messages(int p) { return Bsmp.queueEntries(p, (long) PER_PAIR * p); }

        @Override
        public Step prepare(Context ctx, Arena arena) {
            int p = ctx.nprocs();
            long perProcess = (long) PER_PAIR * p;
            MemorySegment source = arena.allocate(Long.BYTES + PAYLOAD, Long.BYTES);
            Memslot src = ctx.registerLocal(source);
            Bsmp bsmp = Bsmp.create(ctx, perProcess * PAYLOAD, Long.BYTES, perProcess);
            return new Step() {
                @Override
                public void run() {
                    for (int i = 0; i < PER_PAIR; i++) {
                        for (int d = 0; d < p; d++) bsmp.send(d, src, 0, src, Long.BYTES, PAYLOAD);
                    }
                    bsmp.sync();
                    long sink = 0;
                    for (BsmpMessage m = bsmp.move(); m != null; m = bsmp.move()) {
                        sink += m.buffer().get(ValueLayout.JAVA_BYTE, m.payloadOffset());
                    }
                    if (sink != 0) throw new IllegalStateException("BSMP bench: a payload arrived corrupted");
                    bsmp.sync();
                }

                @Override
                public void release() {
                    bsmp.close();
                    ctx.deregister(src);
                }
            };
        }
    }

    /** @return the same messages as plain puts into distinct offsets of a global buffer, one sync */
    static Workload rawPut() { return new RawPutAllToAll(); }

    private static final class RawPutAllToAll extends AllToAll {
        private static final long serialVersionUID = 1L;

        RawPutAllToAll() { super(RAW_PUT, 2); }

        @Override public long messages(int p) { return (long) PER_PAIR * p; }

        @Override
        public Step prepare(Context ctx, Arena arena) {
            int p = ctx.nprocs(), s = ctx.pid();
            Memslot src = ctx.registerLocal(arena.allocate(PAYLOAD, Long.BYTES));
            Memslot dst = ctx.registerGlobal(arena.allocate((long) PER_PAIR * p * PAYLOAD, Long.BYTES));
            return Workloads.step(ctx, () -> {
                for (int i = 0; i < PER_PAIR; i++) {
                    long at = ((long) s * PER_PAIR + i) * PAYLOAD;
                    for (int d = 0; d < p; d++) ctx.put(src, 0, d, dst, at, PAYLOAD);
                }
                ctx.sync();
            }, src, dst);
        }
    }

    /** An all-to-all message row: p = 2..4, {@code 16·p} messages sent per process per step. */
    private abstract static class AllToAll extends Workloads.Base {
        private static final long serialVersionUID = 1L;

        AllToAll(String name, long registrations) {
            super(name, Metric.MESSAGES_PER_SECOND, registrations);
        }

        @Override public boolean runsAt(int p) { return p >= 2 && p <= 4; }

        @Override public long amountPerStep(int p) { return (long) PER_PAIR * p; }
    }
}
