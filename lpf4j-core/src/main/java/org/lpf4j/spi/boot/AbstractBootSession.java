package org.lpf4j.spi.boot;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The client side shared by boot modules whose job data lives in a {@link FenceCoordinator}
 * (in-JVM or over a network): argument checks, the caller's own values, the batch of values put
 * since the last commit, the values collect-data fences delivered, and one fence in flight at a
 * time. A module supplies the transport: {@link #publish}, {@link #startFence}, {@link #fetch}
 * and {@link #release}.
 *
 * <p>Thread-safe (the session's monitor guards its state; gets wait on it).
 */
public abstract class AbstractBootSession implements BootSession {
    /** Slack beyond a fence's timeout for the coordinator's verdict to arrive. */
    private static final long GRACE_MILLIS = 2_000;

    private final int rank;
    private final int size;
    private final Map<String, byte[]> own = new HashMap<>();
    private final Map<String, byte[]> uncommitted = new LinkedHashMap<>();
    private final Map<Integer, Map<String, byte[]>> visible = new HashMap<>();
    private final Map<String, Long> instances = new HashMap<>();
    private CompletableFuture<Void> inFlight;
    private long fences;
    private boolean closed;

    /**
     * @param rank this process's rank
     * @param size the job size
     */
    protected AbstractBootSession(int rank, int size) {
        if (size < 1 || rank < 0 || rank >= size) {
            throw new IllegalArgumentException("boot session: rank " + rank + " not in a job of " + size + " processes");
        }
        this.rank = rank;
        this.size = size;
    }

    @Override public final int rank() { return rank; }

    @Override public final int size() { return size; }

    /**
     * Checks a key against the rules of {@link BootSession}.
     *
     * @param call the call, for the message
     * @param key  the key
     * @return the key
     * @throws IllegalArgumentException if it breaks one
     */
    public static String checkKey(String call, String key) {
        Objects.requireNonNull(key, () -> call + ": key");
        int bytes = key.getBytes(StandardCharsets.UTF_8).length;
        if (bytes == 0 || bytes > MAX_KEY_BYTES || key.indexOf('\0') >= 0 || key.startsWith("pmix")) {
            throw new IllegalArgumentException(call + ": key '" + key + "' (" + bytes + " bytes) must be 1.." + MAX_KEY_BYTES
                    + " bytes of UTF-8 without NUL and must not start with 'pmix' (reserved)");
        }
        return key;
    }

    /**
     * @param call what was called
     * @param r    a rank
     * @throws IllegalArgumentException if it is not in the job
     */
    protected final void checkRank(String call, int r) {
        if (r < 0 || r >= size) throw new IllegalArgumentException(call + ": rank " + r + " not in a job of " + size + " processes");
    }

    /**
     * @param value a value about to be put
     * @throws IllegalArgumentException if this module cannot carry it; the default accepts all
     */
    protected void checkValue(String key, int length) {}

    @Override
    public final void put(String key, byte[] value) {
        Objects.requireNonNull(value, "put: value");
        putCopy(key, value.clone());
    }

    @Override
    public final void put(String key, MemorySegment value) {
        Objects.requireNonNull(value, "put: value");
        putCopy(key, value.toArray(ValueLayout.JAVA_BYTE));
    }

    private synchronized void putCopy(String key, byte[] copy) {
        checkOpen("put");
        checkKey("put", key);
        checkValue(key, copy.length);
        own.put(key, copy);
        uncommitted.put(key, copy);
    }

    @Override
    public final void commit() {
        Map<String, byte[]> batch;
        synchronized (this) {
            checkOpen("commit");
            if (uncommitted.isEmpty()) return;
            batch = new LinkedHashMap<>(uncommitted);
            uncommitted.clear();
        }
        publish(batch);
    }

    @Override
    public final void fence(FenceOptions options) {
        CompletableFuture<Void> f = start(options);
        long wait = options.effectiveTimeout().toMillis() + GRACE_MILLIS;
        try {
            f.get(wait, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | CompletionException e) {
            Throwable c = e.getCause();
            if (c instanceof BootException b) throw new BootException(b.getMessage(), b.missingRanks(), b);
            throw new BootException("fence(" + options + ") at rank " + rank + " failed: " + c, new int[0], c);
        } catch (TimeoutException e) {
            f.cancel(false);
            throw new BootException("fence(" + options + ") at rank " + rank + ": no verdict from the " + module()
                    + " coordinator within " + wait + " ms", new int[0], null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BootException("fence(" + options + ") at rank " + rank + ": interrupted", new int[0], e);
        }
    }

    /**
     * {@inheritDoc} The returned future's dependent actions run in the common pool, never on the
     * transport's thread (a blocking call there would stall the transport).
     */
    @Override
    public final CompletableFuture<Void> fenceAsync(FenceOptions options) { return start(options).thenApplyAsync(v -> v); }

    /** Enters a fence; the future completes on the transport's thread. */
    private CompletableFuture<Void> start(FenceOptions options) {
        Objects.requireNonNull(options, "fence: options");
        int[] participants = options.participants(rank, size);
        long seq, instance;
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (this) {
            checkOpen("fence");
            if (inFlight != null && !inFlight.isDone()) {
                throw new IllegalStateException("fence(" + options + ") at rank " + rank + ": another fence is in flight");
            }
            seq = ++fences;
            instance = instances.merge(options.describeParticipants(), 1L, Long::sum);
            inFlight = done;
        }
        startFence(seq, instance, options, participants, options.effectiveTimeout()).whenComplete((data, failure) -> {
            if (failure != null) {
                done.completeExceptionally(failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure);
                return;
            }
            synchronized (this) {
                data.forEach((r, values) -> visible.computeIfAbsent(r, k -> new HashMap<>()).putAll(values));
                notifyAll();
            }
            done.complete(null);
        });
        return done;
    }

    @Override
    public final byte[] get(int owner, String key, Duration timeout) {
        checkRank("get", owner);
        checkKey("get", key);
        Objects.requireNonNull(timeout, "get: timeout");
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            checkOpen("get");
            if (owner == rank) {
                byte[] v = own.get(key);
                if (v == null) throw notFound(owner, key, "this process never put it");
                return v.clone();
            }
            byte[] v = local(owner, key);
            if (v != null) return v.clone();
            if (inFlight != null && !inFlight.isDone()) {
                // A fence in flight may deliver it: wait for that first.
                while (v == null && inFlight != null && !inFlight.isDone()) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) break;
                    try {
                        wait(left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new BootException("get(rank " + owner + ", '" + key + "'): interrupted", new int[0], e);
                    }
                    v = local(owner, key);
                }
                if (v != null) return v.clone();
            }
        }
        byte[] fetched = fetch(owner, key, Math.max(0, deadline - System.nanoTime()));
        if (fetched == null) {
            throw notFound(owner, key, "rank " + owner + " has not committed it" + (timeout.isZero() ? ""
                    : " within " + timeout.toMillis() + " ms"));
        }
        return fetched.clone();
    }

    private byte[] local(int owner, String key) {
        Map<String, byte[]> m = visible.get(owner);
        return m == null ? null : m.get(key);
    }

    private BootException notFound(int owner, String key, String why) {
        return new BootException("get(rank " + owner + ", '" + key + "') at rank " + rank + " (" + module()
                + "): no such value: " + why);
    }

    @Override
    public final void close() {
        CompletableFuture<Void> pending;
        synchronized (this) {
            if (closed) return;
            closed = true;
            pending = inFlight;
            notifyAll();
        }
        release();
        if (pending != null) {
            pending.completeExceptionally(new BootException("fence at rank " + rank + ": the session was closed while it was in flight"));
        }
    }

    /** @return whether {@link #close()} was called */
    protected final synchronized boolean isClosed() { return closed; }

    private void checkOpen(String call) {
        if (closed) throw new IllegalStateException(call + ": the boot session of rank " + rank + " is closed");
    }

    /**
     * Hands a committed batch to the job's store. Called without the session's lock.
     *
     * @param batch key → value (the session no longer modifies it)
     */
    protected abstract void publish(Map<String, byte[]> batch);

    /**
     * Enters a fence.
     *
     * @param seq          this session's fence number, from 1
     * @param instance     the how-many-th fence with this participant description, from 1
     * @param options      the caller's description
     * @param participants the participants, ascending
     * @param timeout      the effective timeout
     * @return completes with the data delivered (owner rank → key → value; empty without
     *         collect-data) or exceptionally with a {@link BootException}
     */
    protected abstract CompletableFuture<Map<Integer, Map<String, byte[]>>> startFence(
            long seq, long instance, FenceOptions options, int[] participants, Duration timeout);

    /**
     * Looks a value up in the job's committed data (PMIx's direct modex).
     *
     * @param owner        its owner
     * @param key          its key
     * @param timeoutNanos how long to wait for it to be committed; 0: answer at once
     * @return the value (not modified afterwards by anyone), or {@code null} if there is none in time
     */
    protected abstract byte[] fetch(int owner, String key, long timeoutNanos);

    /** Releases the transport; called once, by the first {@link #close()}. */
    protected abstract void release();
}
