package org.lpf4j.boot;

import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.boot.FenceOptions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * Every semantic rule of {@link BootSession}, run by every process of a job in lockstep (each
 * rule ends with a fence). Throws {@link AssertionError} naming the rule, the rank and the values
 * at the first violation. The same code runs in threads ({@code local}), in separate JVMs
 * ({@code tcp}) and under mpirun ({@code pmix}).
 */
public final class BootRules {
    private BootRules() {}

    /** Rules a module may not support. */
    public enum Optional {
        /** Late arrival, close before a fence, descriptions that disagree: fences that fail and name ranks. */
        FAILURES,
        /** Checking all 10,000 keys of every rank (else every 97th and the last: PMIx gets cost ~0.5 ms each). */
        EVERY_KEY
    }

    private static final Duration SHORT = Duration.ofMillis(800);
    /** For fences that must fail at once (disagreeing descriptions): a timeout would hide the check. */
    private static final Duration LONG = Duration.ofSeconds(20);

    static byte[] pattern(int rank, int n, int salt) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (rank * 31 + i * 7 + salt);
        return b;
    }

    private static void check(boolean ok, String rule, BootSession s, String what) {
        if (!ok) throw new AssertionError("rule '" + rule + "' broken at rank " + s.rank() + " of " + s.size() + " (" + s.module() + "): " + what);
    }

    private static void same(byte[] expected, byte[] actual, String rule, BootSession s, String what) {
        check(Arrays.equals(expected, actual), rule, s, what + ": expected " + expected.length + " bytes "
                + preview(expected) + ", got " + (actual == null ? "null" : actual.length + " bytes " + preview(actual)));
    }

    private static String preview(byte[] b) { return Arrays.toString(Arrays.copyOf(b, Math.min(8, b.length))); }

    private static BootException fails(Runnable r, String rule, BootSession s, String what) {
        try {
            r.run();
        } catch (BootException e) {
            return e;
        }
        throw new AssertionError("rule '" + rule + "' broken at rank " + s.rank() + " (" + s.module() + "): " + what + " did not fail");
    }

    /** A barrier with room for a slow neighbour (a loaded machine, PMIx's slower collect-data). */
    private static void sync(BootSession s) { s.fence(FenceOptions.barrier().timeout(Duration.ofSeconds(60))); }

    /**
     * Runs every rule.
     *
     * @param s        this process's session
     * @param skip     rules the module does not support
     * @param progress told the name of each rule as it starts
     */
    public static void run(BootSession s, java.util.Set<Optional> skip, Consumer<String> progress) {
        int me = s.rank(), p = s.size();
        check(me >= 0 && me < p, "membership", s, "rank " + me + " size " + p);

        progress.accept("put-commit-fence-get");
        s.put("host", ("host-of-" + me).getBytes());
        s.put("v", pattern(me, 1024, 1));
        s.commit();
        s.fence(FenceOptions.collect());
        for (int q = 0; q < p; q++) {
            same(("host-of-" + q).getBytes(), s.get(q, "host"), "collect-data makes committed values local", s, "host of " + q);
            same(pattern(q, 1024, 1), s.get(q, "v"), "collect-data makes committed values local", s, "v of " + q);
        }

        progress.accept("sizes 0 B, 1 B, 1 MiB, MemorySegment");
        s.put("zero", new byte[0]);
        s.put("one", new byte[]{(byte) (me + 1)});
        s.put("mib", pattern(me, 1 << 20, 2));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment seg = a.allocate(100);
            seg.copyFrom(MemorySegment.ofArray(pattern(me, 100, 3)));
            s.put("seg", seg);
        }
        s.commit();
        s.fence(FenceOptions.collect());
        for (int q = 0; q < p; q++) {
            same(new byte[0], s.get(q, "zero"), "0-byte value", s, "zero of " + q);
            same(new byte[]{(byte) (q + 1)}, s.get(q, "one"), "1-byte value", s, "one of " + q);
            same(pattern(q, 1 << 20, 2), s.get(q, "mib"), "1 MiB value", s, "mib of " + q);
            same(pattern(q, 100, 3), s.get(q, "seg"), "put(MemorySegment)", s, "seg of " + q);
        }

        progress.accept("put after commit is invisible until the next commit and fence");
        s.put("late", pattern(me, 10, 4));
        s.put("v", pattern(me, 1024, 5)); // replaces v, not committed yet
        same(pattern(me, 10, 4), s.get(me, "late"), "own values are visible at once", s, "own late");
        s.fence(FenceOptions.collect());
        for (int q = 0; q < p; q++) {
            if (q == me) continue;
            int owner = q;
            fails(() -> s.get(owner, "late"), "uncommitted values are invisible", s, "get(" + q + ", late) before its commit");
            same(pattern(q, 1024, 1), s.get(q, "v"), "uncommitted replacement is invisible", s, "v of " + q);
        }
        sync(s);
        s.commit();
        s.fence(FenceOptions.collect());
        for (int q = 0; q < p; q++) {
            same(pattern(q, 10, 4), s.get(q, "late"), "visible after commit + fence", s, "late of " + q);
            same(pattern(q, 1024, 5), s.get(q, "v"), "last put wins", s, "v of " + q);
        }

        progress.accept("a key never put is an error, not a hang");
        for (int q = 0; q < p; q++) {
            int owner = q;
            long t0 = System.nanoTime();
            BootException e = fails(() -> s.get(owner, "never"), "missing key", s, "get(" + q + ", never)");
            check(e.getMessage().contains("never") && e.getMessage().contains("rank " + q), "missing key message names rank and key", s,
                    e.getMessage());
            check(System.nanoTime() - t0 < 3_000_000_000L, "missing key without timeout answers at once", s,
                    (System.nanoTime() - t0) / 1_000_000 + " ms");
        }
        if (p > 1) {
            int owner = (me + 1) % p;
            long t0 = System.nanoTime();
            fails(() -> s.get(owner, "never", Duration.ofMillis(500)), "missing key with timeout", s, "get(never, 0.5 s)");
            long ms = (System.nanoTime() - t0) / 1_000_000;
            check(ms >= 450 && ms < 6_000, "missing key waits about its timeout", s, ms + " ms");
        }
        check(throwsIllegal(() -> s.get(p, "v")), "bad rank is IllegalArgumentException", s, "get(" + p + ")");
        check(throwsIllegal(() -> s.put("", new byte[1])), "empty key is IllegalArgumentException", s, "put('')");
        check(throwsIllegal(() -> s.put("pmix.x", new byte[1])), "reserved key is IllegalArgumentException", s, "put(pmix.x)");
        check(throwsIllegal(() -> s.fence(FenceOptions.barrier().ranks(p))), "fence over a rank outside the job", s, "ranks(" + p + ")");
        sync(s);

        progress.accept("barrier: nobody leaves before everybody entered");
        if (me == 0) s.put("t0", longBytes(System.currentTimeMillis()));
        s.commit();
        s.fence(FenceOptions.collect());
        long t0 = java.nio.ByteBuffer.wrap(s.get(0, "t0")).getLong();
        long enter = t0 + 200 + 60L * me;
        sleepUntil(enter);
        s.fence(FenceOptions.barrier());
        long last = t0 + 200 + 60L * (p - 1);
        check(System.currentTimeMillis() >= last - 5, "barrier", s, "left at " + (System.currentTimeMillis() - t0) + " ms, the last rank entered at "
                + (last - t0) + " ms");

        progress.accept("fenceAsync and get with timeout");
        s.put("async", pattern(me, 64, 6));
        s.commit();
        if (p > 1) {
            // rank 1 enters late, so rank 0's first fence cannot be done when it tries a second one
            if (me == 1) sleepUntil(System.currentTimeMillis() + 300);
            CompletableFuture<Void> first = s.fenceAsync(FenceOptions.barrier());
            if (me == 0) check(throwsState(() -> s.fenceAsync(FenceOptions.barrier())), "one fence at a time", s, "second fenceAsync accepted");
            first.join();
        }
        CompletableFuture<Void> f = s.fenceAsync(FenceOptions.collect());
        for (int q = 0; q < p; q++) same(pattern(q, 64, 6), s.get(q, "async", Duration.ofSeconds(10)), "get waits", s, "async of " + q);
        f.join();
        // a continuation may block in the next fence: it does not run on the transport's thread
        s.fenceAsync(FenceOptions.barrier()).thenRun(() -> s.fence(FenceOptions.barrier())).orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join();

        progress.accept("subset: even ranks only");
        int[] evens = IntStream.range(0, p).filter(r -> r % 2 == 0).toArray();
        if (me % 2 == 0) {
            s.put("even", pattern(me, 33, 7));
            s.commit();
            s.fence(FenceOptions.collect().ranks(evens).timeout(Duration.ofSeconds(60)));
            for (int q : evens) same(pattern(q, 33, 7), s.get(q, "even"), "subset collect-data", s, "even of " + q);
            if (p > 1) {
                check(throwsIllegal(() -> s.fence(FenceOptions.collect().ranks(1))), "caller must participate", s,
                        "fence over [1] at rank " + me);
            }
        }
        sync(s);

        // Last of the collect-data rules: later collect-data fences would carry these 10,000 keys again.
        progress.accept("10,000 keys per process");
        for (int k = 0; k < 10_000; k++) s.put("k" + k, longBytes(me * 1_000_000L + k));
        s.commit();
        s.fence(FenceOptions.collect().timeout(Duration.ofSeconds(60)));
        int stride = skip.contains(Optional.EVERY_KEY) ? 97 : 1;
        for (int q = 0; q < p; q++) {
            for (int k = 0; k < 10_000; k = k == 9_999 ? 10_000 : Math.min(9_999, k + stride)) {
                byte[] v = s.get(q, "k" + k);
                if (java.nio.ByteBuffer.wrap(v).getLong() != q * 1_000_000L + k) same(longBytes(q * 1_000_000L + k), v, "10,000 keys", s, "k" + k + " of " + q);
            }
        }

        if (!skip.contains(Optional.FAILURES) && p > 1) failures(s, progress);
        progress.accept("done");
    }

    private static void failures(BootSession s, Consumer<String> progress) {
        int me = s.rank(), p = s.size();
        progress.accept("descriptions that disagree fail");
        FenceOptions mine = me == 0 ? FenceOptions.barrier().ranks(IntStream.range(0, p).toArray()) : FenceOptions.barrier();
        BootException e = fails(() -> s.fence(mine.timeout(LONG)), "all vs explicit list", s, "mismatched fence");
        check(e.getMessage().contains("describe"), "mismatch message", s, e.getMessage());
        // rank 0 is one fence of the explicit-list description ahead: it enters the others' "all" now.
        if (me == 0) fails(() -> s.fence(FenceOptions.barrier().timeout(LONG)), "all vs explicit list", s, "rank 0's 'all' fence");
        // and the others enter rank 0's explicit list one.
        if (me != 0) fails(() -> s.fence(FenceOptions.barrier().ranks(IntStream.range(0, p).toArray()).timeout(LONG)),
                "late arrival at a failed fence", s, "explicit-list fence");
        sync(s);

        progress.accept("collect-data disagreement fails");
        FenceOptions c = new FenceOptions(null, me == 0, LONG);
        fails(() -> s.fence(c), "collect-data mismatch", s, "fence with collectData " + (me == 0));
        sync(s);

        progress.accept("a fence that times out names who did not arrive");
        int late = p - 1;
        if (me != late) {
            long t0 = System.nanoTime();
            BootException t = fails(() -> s.fence(FenceOptions.barrier().timeout(SHORT)), "timeout", s, "fence without rank " + late);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            check(Arrays.equals(new int[]{late}, t.missingRanks()), "timeout names the missing rank", s,
                    Arrays.toString(t.missingRanks()) + ": " + t.getMessage());
            check(ms < SHORT.toMillis() + 2_000, "timeout is bounded", s, ms + " ms");
        } else {
            sleepUntil(System.currentTimeMillis() + SHORT.toMillis() + 1_500);
            long t0 = System.nanoTime();
            fails(() -> s.fence(FenceOptions.barrier().timeout(SHORT)), "late arrival", s, "late fence");
            check((System.nanoTime() - t0) / 1_000_000 < 1_000, "late arrival fails at once", s, "took " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        }
        sync(s);

        progress.accept("a rank that closes makes the others' fence fail naming it");
        if (me == late) {
            s.close();
            check(throwsState(() -> s.put("x", new byte[1])), "closed session refuses put", s, "put after close");
            return;
        }
        long t0 = System.nanoTime();
        BootException x = fails(() -> s.fence(FenceOptions.barrier().timeout(Duration.ofSeconds(20))), "closed participant", s, "fence");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        check(Arrays.equals(new int[]{late}, x.missingRanks()), "close names the rank", s, Arrays.toString(x.missingRanks()) + ": " + x.getMessage());
        check(ms < 10_000, "close fails the fence well within its timeout", s, ms + " ms");
        // the others can still fence among themselves
        s.fence(FenceOptions.barrier().ranks(IntStream.range(0, late).toArray()));
    }

    private static boolean throwsIllegal(Runnable r) {
        try {
            r.run();
            return false;
        } catch (IllegalArgumentException e) {
            return true;
        }
    }

    private static boolean throwsState(Runnable r) {
        try {
            r.run();
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }

    static byte[] longBytes(long v) { return java.nio.ByteBuffer.allocate(8).putLong(v).array(); }

    private static void sleepUntil(long millis) {
        long d;
        while ((d = millis - System.currentTimeMillis()) > 0) {
            try {
                Thread.sleep(d);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted");
            }
        }
    }
}
