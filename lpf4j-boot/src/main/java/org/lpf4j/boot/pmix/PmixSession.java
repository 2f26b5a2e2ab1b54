package org.lpf4j.boot.pmix;

import org.lpf4j.spi.boot.AbstractBootSession;
import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.boot.FenceOptions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A {@code pmix} boot session: the PMIx client of this process (PMIx_Init .. PMIx_Finalize), with
 * values stored as {@code PMIX_BYTE_OBJECT} in {@code PMIX_GLOBAL} scope. Fences run
 * {@code PMIx_Fence} on a session thread (so {@link #fenceAsync} returns at once and a fence that
 * never ends cannot block the caller beyond its timeout); {@code PMIX_COLLECT_DATA} and
 * {@code PMIX_TIMEOUT} (seconds, rounded up) are passed. A get without timeout passes
 * {@code PMIX_OPTIONAL} (local store only: a missing key fails at once instead of waiting for its
 * owner); with a timeout, {@code PMIX_TIMEOUT}.
 *
 * <p>PMIx does not say which ranks a failed fence missed; under mpirun a dead process ends the
 * job. Each call costs one native call plus a copy of the value.
 */
public final class PmixSession implements BootSession {
    private static final long GRACE_MILLIS = 2_000;

    private final Pmix pmix;
    private final String nspace;
    private final int rank;
    private final int size;
    private final ExecutorService fences;
    private CompletableFuture<Void> inFlight;
    private boolean closed;

    // PMIx is initialised once per process: sessions share it (reference counted) and the last
    // close finalises it; PMIx cannot be initialised again after PMIx_Finalize (the server counts
    // the process as finalised), so that is refused. membership() leaves one reference that the
    // next session takes over.
    private static int references;
    private static boolean finalized;
    private static boolean membershipReference;
    private static String processNspace;
    private static int processRank;

    private static synchronized void acquire(Pmix pmix, boolean forMembership) {
        if (membershipReference && !forMembership) {
            membershipReference = false;
            return;
        }
        if (forMembership && membershipReference) return;
        if (finalized) {
            throw new BootException("pmix: PMIx was finalised in this process (its last session closed); it cannot be initialised again");
        }
        if (references == 0) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment proc = a.allocate(Pmix.PROC);
                int rc = call(() -> (int) pmix.init.invokeExact(proc, MemorySegment.NULL, 0L));
                if (rc != Pmix.SUCCESS) {
                    throw new BootException("PMIx_Init failed: " + pmix.error(rc) + " (was this JVM started by a PMIx launcher?)");
                }
                processNspace = proc.getString(0);
                processRank = proc.get(JAVA_INT, Pmix.RANK_AT);
            }
        }
        references++;
        if (forMembership) membershipReference = true;
    }

    private static synchronized void releaseProcess(Pmix pmix) {
        if (--references > 0) return;
        finalized = true;
        call(() -> (int) pmix.finalize.invokeExact(MemorySegment.NULL, 0L));
    }

    /**
     * Rank and size of this process without opening a session (PMIx stays initialised for the
     * next session, which takes this reference over).
     */
    static synchronized int[] membership(String library) {
        Pmix pmix = Pmix.load(library);
        acquire(pmix, true);
        try (Arena a = Arena.ofConfined()) {
            return new int[]{processRank, jobSize(pmix, a, processNspace)};
        }
    }

    private PmixSession(Pmix pmix) {
        this.pmix = pmix;
        acquire(pmix, false);
        this.nspace = processNspace;
        this.rank = processRank;
        try (Arena a = Arena.ofConfined()) {
            this.size = jobSize(pmix, a, nspace);
        } catch (RuntimeException e) {
            releaseProcess(pmix);
            throw e;
        }
        this.fences = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "lpf-boot-pmix-fence");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Initialises the PMIx client.
     *
     * @param library the library to load, e.g. {@code libpmix.so.2}
     * @return the session
     * @throws BootException if PMIx_Init fails
     */
    public static PmixSession open(String library) { return new PmixSession(Pmix.load(library)); }

    @FunctionalInterface
    private interface Native { int run() throws Throwable; }

    private static int call(Native n) {
        try {
            return n.run();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private MemorySegment proc(Arena a, int r) { return proc(a, nspace, r); }

    private static MemorySegment proc(Arena a, String nspace, int r) {
        MemorySegment p = a.allocate(Pmix.PROC);
        p.setString(0, nspace);
        p.set(JAVA_INT, Pmix.RANK_AT, r);
        return p;
    }

    private static int jobSize(Pmix pmix, Arena a, String nspace) {
        MemorySegment out = a.allocate(ADDRESS);
        MemorySegment key = a.allocateFrom("pmix.job.size");
        MemorySegment who = proc(a, nspace, Pmix.RANK_WILDCARD);
        int rc = call(() -> (int) pmix.get.invokeExact(who, key, MemorySegment.NULL, 0L, out));
        if (rc != Pmix.SUCCESS) throw new BootException("PMIx_Get(pmix.job.size) failed: " + pmix.error(rc));
        MemorySegment v = out.get(ADDRESS, 0).reinterpret(Pmix.VALUE);
        try {
            short type = v.get(JAVA_SHORT, 0);
            if (type != Pmix.UINT32) throw new BootException("PMIx_Get(pmix.job.size): type " + type + ", expected PMIX_UINT32");
            return v.get(JAVA_INT, Pmix.DATA_AT);
        } finally {
            release(pmix, v);
        }
    }

    private static void release(Pmix pmix, MemorySegment value) {
        call(() -> {
            pmix.valueDestruct.invokeExact(value);
            pmix.free.invokeExact(value);
            return 0;
        });
    }

    @Override public int rank() { return rank; }

    @Override public int size() { return size; }

    @Override public String module() { return "pmix"; }

    /** @return the PMIx namespace of the job */
    public String namespace() { return nspace; }

    private synchronized void checkOpen(String call) {
        if (closed) throw new IllegalStateException(call + ": the pmix boot session of rank " + rank + " is closed");
    }

    @Override
    public void put(String key, byte[] value) {
        Objects.requireNonNull(value, "put: value");
        put(key, MemorySegment.ofArray(value));
    }

    @Override
    public void put(String key, MemorySegment value) {
        AbstractBootSession.checkKey("put", key);
        Objects.requireNonNull(value, "put: value");
        checkOpen("put");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment bytes = a.allocate(Math.max(1, value.byteSize()));
            MemorySegment.copy(value, 0, bytes, 0, value.byteSize());
            MemorySegment v = a.allocate(Pmix.VALUE);
            v.set(JAVA_SHORT, 0, Pmix.BYTE_OBJECT);
            v.set(ADDRESS, Pmix.DATA_AT, bytes);
            v.set(JAVA_LONG, Pmix.DATA_AT + 8, value.byteSize());
            MemorySegment k = a.allocateFrom(key);
            int rc = call(() -> (int) pmix.put.invokeExact(Pmix.GLOBAL, k, v)); // PMIx copies the value
            if (rc != Pmix.SUCCESS) throw new BootException("PMIx_Put('" + key + "', " + value.byteSize() + " bytes) failed: " + pmix.error(rc));
        }
    }

    @Override
    public void commit() {
        checkOpen("commit");
        int rc = call(() -> (int) pmix.commit.invokeExact());
        if (rc != Pmix.SUCCESS) throw new BootException("PMIx_Commit failed: " + pmix.error(rc));
    }

    @Override
    public void fence(FenceOptions options) {
        CompletableFuture<Void> f = start(options);
        long wait = options.effectiveTimeout().toMillis() + GRACE_MILLIS;
        try {
            f.get(wait, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof BootException b) throw new BootException(b.getMessage(), b.missingRanks(), b);
            throw new BootException("PMIx_Fence(" + options + ") failed: " + e.getCause(), new int[0], e.getCause());
        } catch (TimeoutException e) {
            throw new BootException("PMIx_Fence(" + options + ") at rank " + rank + " did not finish within " + wait
                    + " ms (PMIx does not say which ranks are missing)", new int[0], e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BootException("PMIx_Fence: interrupted", new int[0], e);
        }
    }

    /** {@inheritDoc} Dependent actions run in the common pool, not on the session's fence thread. */
    @Override
    public CompletableFuture<Void> fenceAsync(FenceOptions options) { return start(options).thenApplyAsync(v -> v); }

    private synchronized CompletableFuture<Void> start(FenceOptions options) {
        Objects.requireNonNull(options, "fence: options");
        int[] participants = options.participants(rank, size);
        checkOpen("fence");
        if (inFlight != null && !inFlight.isDone()) {
            throw new IllegalStateException("fence(" + options + ") at rank " + rank + ": another fence is in flight");
        }
        long seconds = Math.max(1, (options.effectiveTimeout().toMillis() + 999) / 1000);
        CompletableFuture<Void> f = CompletableFuture.runAsync(() -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment procs = MemorySegment.NULL;
                long nprocs = 0;
                if (!options.all()) {
                    procs = a.allocate((long) Pmix.PROC * participants.length);
                    for (int i = 0; i < participants.length; i++) {
                        MemorySegment.copy(proc(a, participants[i]), 0, procs, (long) i * Pmix.PROC, Pmix.PROC);
                    }
                    nprocs = participants.length;
                }
                int ninfo = options.collectData() ? 2 : 1;
                MemorySegment infos = a.allocate((long) Pmix.INFO * ninfo);
                Pmix.info(infos, 0, "pmix.timeout", Pmix.INT).set(JAVA_INT, Pmix.DATA_AT, (int) Math.min(Integer.MAX_VALUE, seconds));
                if (options.collectData()) Pmix.info(infos, 1, "pmix.collect", Pmix.BOOL).set(JAVA_BYTE, Pmix.DATA_AT, (byte) 1);
                MemorySegment p = procs;
                long n = nprocs;
                int rc = call(() -> (int) pmix.fence.invokeExact(p, n, infos, (long) ninfo));
                if (rc != Pmix.SUCCESS) {
                    throw new BootException("PMIx_Fence(" + options + ") at rank " + rank + " failed: " + pmix.error(rc)
                            + " (PMIx does not say which ranks are missing)");
                }
            }
        }, fences);
        inFlight = f;
        return f;
    }

    @Override
    public byte[] get(int owner, String key, Duration timeout) {
        if (owner < 0 || owner >= size) throw new IllegalArgumentException("get: rank " + owner + " not in a job of " + size + " processes");
        AbstractBootSession.checkKey("get", key);
        Objects.requireNonNull(timeout, "get: timeout");
        checkOpen("get");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment info = a.allocate(Pmix.INFO);
            if (timeout.isZero()) {
                Pmix.info(info, 0, "pmix.optional", Pmix.BOOL).set(JAVA_BYTE, Pmix.DATA_AT, (byte) 1);
            } else {
                Pmix.info(info, 0, "pmix.timeout", Pmix.INT).set(JAVA_INT, Pmix.DATA_AT,
                        (int) Math.max(1, Math.min(Integer.MAX_VALUE, (timeout.toMillis() + 999) / 1000)));
            }
            MemorySegment out = a.allocate(ADDRESS);
            MemorySegment who = proc(a, owner);
            MemorySegment k = a.allocateFrom(key);
            int rc = call(() -> (int) pmix.get.invokeExact(who, k, info, 1L, out));
            if (rc != Pmix.SUCCESS) {
                throw new BootException("get(rank " + owner + ", '" + key + "') at rank " + rank + " (pmix): no such value: "
                        + pmix.error(rc));
            }
            MemorySegment v = out.get(ADDRESS, 0).reinterpret(Pmix.VALUE);
            try {
                short type = v.get(JAVA_SHORT, 0);
                if (type != Pmix.BYTE_OBJECT) {
                    throw new BootException("get(rank " + owner + ", '" + key + "') (pmix): value of PMIx type " + type
                            + ", not a byte object put by lpf4j");
                }
                long n = v.get(JAVA_LONG, Pmix.DATA_AT + 8);
                MemorySegment bytes = v.get(ADDRESS, Pmix.DATA_AT);
                if (n == 0) return new byte[0];
                return bytes.reinterpret(n).toArray(JAVA_BYTE);
            } finally {
                release(pmix, v);
            }
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        fences.shutdownNow();
        releaseProcess(pmix);
    }
}
