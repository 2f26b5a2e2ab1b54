package org.lpf4j.cr;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A deterministic BSP job whose result depends on every superstep: each process keeps n longs;
 * each step it puts its first word to the next pid and folds the word it received into all of
 * its own, and adds it to a declared value. Its loop is the one the documentation shows
 * ({@code for (t = cr.iteration(); t < steps; t = cr.checkpoint())}). Takes a checkpoint at every
 * checkpoint point asked for ({@code every} steps), and can
 * be told to fail once: {@code victim} throws at step {@code failAt} in the first run only.
 *
 * <p>What the tests check is kept in files of a directory of its own (its ledger), not in the
 * object, so that the job reports the same on every engine, wherever its processes run (other
 * JVMs of one host: a multi-JVM engine, Spark's executors): process 0 records each run and the
 * iteration it resumed at, the victim that it failed, every process its result.
 */
final class RingJob implements Spmd {
    private static final long serialVersionUID = 1L;
    final int p, n, steps, every, victim, failAt;
    private final String ledger;
    /** Computation time per step, so that writes finish (and commit) a few steps after they start. */
    int pauseMillis;

    /** @param ledgers a directory in which the job makes its ledger (every process must see it) */
    RingJob(Path ledgers, int p, int n, int steps, int every, int victim, int failAt) {
        this.p = p;
        this.n = n;
        this.steps = steps;
        this.every = every;
        this.victim = victim;
        this.failAt = failAt;
        try {
            this.ledger = Files.createTempDirectory(ledgers, "ring").toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void run(Context ctx) throws Exception {
        int pid = ctx.pid(), p = ctx.nprocs();
        Path book = Path.of(ledger);
        if (pid == 0) Files.writeString(book.resolve(RUNS), "run\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        long[] state = new long[n];
        long[] inbox = new long[1];
        for (int i = 0; i < n; i++) state[i] = pid * 1000L + i;
        ctx.resizeMemoryRegister(2 + Checkpoints.REGISTER_SLOTS);
        ctx.resizeMessageQueue(2 + Checkpoints.queueEntries(p));
        ctx.sync();
        Memslot src = ctx.registerGlobal(MemorySegment.ofArray(state));
        Memslot in = ctx.registerGlobal(MemorySegment.ofArray(inbox));
        long sum;
        try (Checkpoints cr = Checkpoints.init(ctx, "ring " + n + " " + steps)) {
            cr.protect("state", MemorySegment.ofArray(state));
            // State the loop body updates, beside the segment: the sum of the words received.
            Checkpoints.Value<Long> received = cr.value("received", 0L);
            if (cr.resume().isPresent() && pid == 0) Files.writeString(book.resolve(RESTORED), Long.toString(cr.iteration()));
            for (long t = cr.iteration(); t < steps; ) {
                int s = (int) t;
                if (pid == victim && s == failAt && firstFailure(book)) {
                    throw new IllegalStateException("injected failure at pid " + pid + ", step " + s);
                }
                ctx.put(src, 0, (pid + 1) % p, in, 0, 8);
                ctx.sync();
                for (int i = 0; i < n; i++) state[i] = state[i] * 31 + inbox[0] + s;
                received.set(received.get() + inbox[0]);
                if (pauseMillis > 0) Thread.sleep(pauseMillis);
                t = every > 0 && (s + 1) % every == 0 ? cr.checkpointNow() : cr.checkpoint();
            }
            sum = received.get();
        }
        StringBuilder b = new StringBuilder().append(sum);
        for (long v : state) b.append(' ').append(v);
        Files.writeString(book.resolve(RESULT + pid), b.append('\n'));
    }

    private static final String RUNS = "runs", RESTORED = "restored", FAILED = "failed", RESULT = "result-";

    /** @return true the first time the victim gets here (it records that it failed), false in later runs */
    private static boolean firstFailure(Path book) throws IOException {
        try {
            Files.createFile(book.resolve(FAILED));
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        }
    }

    /** @return how many times the job ran (process 0 started) */
    int runs() {
        Path f = Path.of(ledger, RUNS);
        return Files.exists(f) ? (int) read(f).lines().count() : 0;
    }

    /** @return the iteration at which the last run that resumed a checkpoint resumed, or -1 if none did */
    int restoredAt() {
        Path f = Path.of(ledger, RESTORED);
        return Files.exists(f) ? Integer.parseInt(read(f).strip()) : -1;
    }

    /** @return each process's state at the end of the last run that ended, by pid (null where none ended) */
    long[][] results() {
        long[][] r = new long[p][];
        for (int q = 0; q < p; q++) {
            long[] all = result(q);
            r[q] = all == null ? null : java.util.Arrays.copyOfRange(all, 1, all.length);
        }
        return r;
    }

    /** @return each process's sum of received words at the end of the last run that ended, by pid (-1 where none ended) */
    long[] sums() {
        long[] r = new long[p];
        for (int q = 0; q < p; q++) {
            long[] all = result(q);
            r[q] = all == null ? -1 : all[0];
        }
        return r;
    }

    private long[] result(int pid) {
        Path f = Path.of(ledger, RESULT + pid);
        if (!Files.exists(f)) return null;
        return java.util.Arrays.stream(read(f).strip().split(" ")).mapToLong(Long::parseLong).toArray();
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the results of a failure-free run computed sequentially */
    static long[][] expected(int p, int n, int steps) { return simulate(p, n, steps).states(); }

    /** @return the sums of received words of a failure-free run, by pid */
    static long[] expectedSums(int p, int n, int steps) { return simulate(p, n, steps).sums(); }

    private record Simulated(long[][] states, long[] sums) {}

    private static Simulated simulate(int p, int n, int steps) {
        long[][] st = new long[p][n];
        long[] sums = new long[p];
        for (int q = 0; q < p; q++) for (int i = 0; i < n; i++) st[q][i] = q * 1000L + i;
        for (int s = 0; s < steps; s++) {
            long[] first = new long[p];
            for (int q = 0; q < p; q++) first[q] = st[q][0];
            for (int q = 0; q < p; q++) {
                long got = first[(q - 1 + p) % p];
                sums[q] += got;
                for (int i = 0; i < n; i++) st[q][i] = st[q][i] * 31 + got + s;
            }
        }
        return new Simulated(st, sums);
    }
}
