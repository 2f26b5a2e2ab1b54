package org.lpf4j.bench;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.bsmp.Bsmp;
import org.lpf4j.bsmp.BsmpMessage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The BSMP throughput benchmark: messages per second for small payloads sent all-to-all, beside
 * the raw put rate of the same pattern in the same SPMD run, so the two numbers share the
 * machine state and the ratio is meaningful.
 *
 * <p>Every process sends {@code messagesPerPair} messages of {@code payloadBytes} to every
 * process (itself included) in each superstep:
 * <ul>
 *   <li><b>BSMP</b>: {@link Bsmp#send(int, Memslot, long, Memslot, long, long) send} from a
 *       registered slot holding an 8-byte tag directly followed by the payload (so one local put
 *       per message), {@link Bsmp#sync()} (WRITE → READ), {@link Bsmp#move()}
 *       of every message (reading its first byte), {@link Bsmp#sync()} (READ → WRITE): one
 *       superstep of messages costs three {@code ctx.sync()} calls;</li>
 *   <li><b>raw put</b>: the same number of {@code put}s of the same size into a global buffer at
 *       precomputed distinct offsets, then one {@code ctx.sync()}.</li>
 * </ul>
 * Rates count all processes' messages together, timed by process 0. The two kinds alternate in
 * four repetitions; the first is a warm-up and the fastest of the other three counts, which keeps
 * the numbers stable on a loaded machine.
 *
 * <p>A standalone main beside the JMH benchmarks of this module (it is not one itself: a rate
 * over a whole SPMD section does not fit JMH's per-invocation timing), run as
 * {@code java -cp "lpf4j-bench/target/lpf4j-bench-0.1.0-SNAPSHOT.jar:lpf4j-bench/target/lib/*"
 * org.lpf4j.bench.BsmpThroughput} after {@code mvn -pl lpf4j-bench -am package}. {@code lpf bench}
 * has its own BSMP rows with its warm-up and table ({@code org.lpf4j.tools.bench.BsmpWorkloads}).
 */
public final class BsmpThroughput {
    private BsmpThroughput() {}

    /** Timed repetitions of each kind, after one warm-up repetition; the fastest counts. */
    private static final int REPETITIONS = 3;

    /** Payload size of the standard row (the same as {@code lpf bench}'s BSMP row). */
    public static final int PAYLOAD_BYTES = 64;

    /**
     * One measurement.
     *
     * @param p                      processes that ran
     * @param payloadBytes           payload bytes per message
     * @param messagesPerPair        messages each process sent each process per superstep
     * @param supersteps             timed supersteps of each kind
     * @param bsmpMessagesPerSecond  BSMP messages delivered and moved per second, all processes
     * @param putMessagesPerSecond   raw puts executed per second, all processes
     * @param putBytesPerSecond      raw put payload bandwidth in bytes per second, all processes
     */
    public record Result(int p, int payloadBytes, int messagesPerPair, int supersteps,
                         double bsmpMessagesPerSecond, double putMessagesPerSecond, double putBytesPerSecond) {

        /** @return BSMP payload bandwidth in bytes per second, all processes */
        public double bsmpBytesPerSecond() { return bsmpMessagesPerSecond * payloadBytes; }

        /** @return BSMP message rate as a fraction of the raw put rate */
        public double ratio() { return bsmpMessagesPerSecond / putMessagesPerSecond; }

        @Override
        public String toString() {
            return String.format("bsmp all-to-all p=%d %d B: %.3g msg/s (%.3g MB/s) | raw put %.3g msg/s (%.3g MB/s) | ratio %.2f",
                    p, payloadBytes, bsmpMessagesPerSecond, bsmpBytesPerSecond() / 1e6, putMessagesPerSecond,
                    putBytesPerSecond / 1e6, ratio());
        }
    }

    /**
     * The standard row: 64-byte payloads, 16 messages per pair, 200 timed supersteps.
     *
     * @param root a root context ({@link Lpf#root()})
     * @param p    processes to run (reduced to what the machine offers)
     * @return the rates
     */
    public static Result measure(Context root, int p) {
        return measure(root, p, PAYLOAD_BYTES, 16, 200);
    }

    /**
     * Runs the benchmark in one SPMD section of {@code p} processes. Costs
     * {@code 4 · supersteps} supersteps of each kind.
     *
     * @param root            a root context
     * @param p               processes to run (reduced to what the machine offers)
     * @param payloadBytes    bytes per message, ≥ 1
     * @param messagesPerPair messages from each process to each process per superstep, ≥ 1
     * @param supersteps      timed supersteps of each kind, ≥ 1
     * @return the rates
     * @throws IllegalArgumentException if an argument is out of range
     */
    public static Result measure(Context root, int p, int payloadBytes, int messagesPerPair, int supersteps) {
        if (p < 1 || payloadBytes < 1 || messagesPerPair < 1 || supersteps < 1) {
            throw new IllegalArgumentException("BsmpThroughput.measure(p=" + p + ", payloadBytes=" + payloadBytes
                    + ", messagesPerPair=" + messagesPerPair + ", supersteps=" + supersteps + "): all must be >= 1");
        }
        MemorySegment out = Arena.ofAuto().allocate(ValueLayout.JAVA_DOUBLE, 4);
        root.exec(p, ctx -> spmd(ctx, payloadBytes, messagesPerPair, supersteps), Args.of(MemorySegment.NULL, out));
        return new Result((int) out.getAtIndex(ValueLayout.JAVA_DOUBLE, 0), payloadBytes, messagesPerPair, supersteps,
                out.getAtIndex(ValueLayout.JAVA_DOUBLE, 1), out.getAtIndex(ValueLayout.JAVA_DOUBLE, 2),
                out.getAtIndex(ValueLayout.JAVA_DOUBLE, 2) * payloadBytes);
    }

    private static void spmd(Context ctx, int payloadBytes, int k, int supersteps) {
        long perProcess = (long) k * ctx.nprocs();
        ctx.resizeMemoryRegister(Bsmp.REGISTER_ENTRIES + 2);
        ctx.resizeMessageQueue(Math.max(Bsmp.queueEntries(ctx.nprocs(), perProcess), perProcess));
        ctx.sync();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment source = arena.allocate(Long.BYTES + payloadBytes, Long.BYTES);
            source.fill((byte) 1);
            MemorySegment target = arena.allocate(perProcess * payloadBytes, Long.BYTES);
            timeBoth(ctx, source, target, payloadBytes, k, supersteps);
        }
    }

    private static void timeBoth(Context ctx, MemorySegment source, MemorySegment target, int payloadBytes, int k,
                                 int supersteps) {
        int p = ctx.nprocs(), s = ctx.pid();
        long perProcess = (long) k * p;
        Memslot src = ctx.registerLocal(source);
        Memslot dst = ctx.registerGlobal(target);
        ctx.sync();
        long bsmpNanos = Long.MAX_VALUE, putNanos = Long.MAX_VALUE;
        try (Bsmp bsmp = Bsmp.create(ctx, perProcess * payloadBytes, Long.BYTES, perProcess)) {
            // Alternating repetitions, the first one a warm-up; the best of the others counts.
            for (int rep = 0; rep <= REPETITIONS; rep++) {
                long t0 = System.nanoTime();
                bsmpRounds(bsmp, src, payloadBytes, k, supersteps);
                long t1 = System.nanoTime();
                putRounds(ctx, src, dst, payloadBytes, k, supersteps);
                long t2 = System.nanoTime();
                if (rep == 0) continue;
                bsmpNanos = Math.min(bsmpNanos, t1 - t0);
                putNanos = Math.min(putNanos, t2 - t1);
            }
        }
        ctx.deregister(src);
        ctx.deregister(dst);
        if (s == 0) {
            double messages = (double) perProcess * p * supersteps;
            MemorySegment out = ctx.args().output();
            out.setAtIndex(ValueLayout.JAVA_DOUBLE, 0, p);
            out.setAtIndex(ValueLayout.JAVA_DOUBLE, 1, messages / (bsmpNanos * 1e-9));
            out.setAtIndex(ValueLayout.JAVA_DOUBLE, 2, messages / (putNanos * 1e-9));
        }
    }

    private static void bsmpRounds(Bsmp bsmp, Memslot src, int payloadBytes, int k, int rounds) {
        int p = bsmp.context().nprocs();
        long checksum = 0, moved = 0;
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < k; i++) {
                for (int d = 0; d < p; d++) bsmp.send(d, src, 0, src, Long.BYTES, payloadBytes);
            }
            bsmp.sync();
            for (BsmpMessage m = bsmp.move(); m != null; m = bsmp.move()) {
                checksum += m.buffer().get(ValueLayout.JAVA_BYTE, m.payloadOffset());
                moved++;
            }
            bsmp.sync();
        }
        if (checksum != moved || moved != (long) rounds * k * p) throw new IllegalStateException("BsmpThroughput: payloads were not delivered intact");
    }

    private static void putRounds(Context ctx, Memslot src, Memslot dst, int payloadBytes, int k, int rounds) {
        int p = ctx.nprocs(), s = ctx.pid();
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < k; i++) {
                long at = ((long) s * k + i) * payloadBytes;
                for (int d = 0; d < p; d++) ctx.put(src, Long.BYTES, d, dst, at, payloadBytes);
            }
            ctx.sync();
        }
    }

    /**
     * Prints the standard rows for p = 2 and 4 on the selected engine.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        Context root = Lpf.root();
        for (int p : new int[]{2, 4}) System.out.println(measure(root, p));
    }
}
