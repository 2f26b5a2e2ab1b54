package org.lpf4j.spi.boot;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One process's membership of a job, the PMIx way: {@link #put} key-value pairs, {@link #commit}
 * them, take part in a {@link #fence} that (with {@link FenceOptions#collectData()}) makes the
 * committed pairs of every participant local, then {@link #get} any process's values.
 *
 * <h2>Visibility</h2>
 * <ul>
 *   <li>The caller's own values are visible to itself as soon as they are put.</li>
 *   <li>Another process sees a value only after its owner committed it and, normally, after a
 *       collect-data fence both took part in. A value put after the last commit is not visible
 *       to others until the next commit and fence. A key the caller has no local copy of is
 *       looked up in the job's committed data (PMIx's direct modex): committed but not yet
 *       fenced values can be found that way, uncommitted ones never.</li>
 *   <li>Putting a key again replaces its value (last put wins at the next commit). Whether a
 *       replaced value, once committed, can be seen before the next fence depends on the module
 *       ({@code pmix} may show it at once, {@code tcp} and {@code local} keep the fenced copy):
 *       programs that re-put keys fence between reading the old values and committing new ones.</li>
 * </ul>
 * Keys are non-empty, at most {@value #MAX_KEY_BYTES} bytes of UTF-8 (PMIx's
 * {@code PMIX_MAX_KEYLEN}), without NUL, and do not start with {@code "pmix"} (reserved by PMIx).
 *
 * <h2>Failure</h2>
 * A fence never hangs: if a participant died, closed its session, or did not arrive within the
 * timeout, the fence throws a {@link BootException} naming those ranks. Getting a key that was
 * never put (or never committed) is a {@link BootException} naming the rank and key, after at most
 * the given timeout.
 *
 * <p>One fence at a time per session. Implementations are thread-safe; {@code put}, {@code commit}
 * and {@code get} cost a copy of the value plus, for a remote lookup, one round trip.
 */
public interface BootSession extends AutoCloseable {
    /** The longest key in bytes of UTF-8 (PMIx's {@code PMIX_MAX_KEYLEN}, pmix_common.h). */
    int MAX_KEY_BYTES = 511;

    /** @return this process's rank, 0 ≤ rank &lt; size */
    int rank();

    /** @return the number of processes of the job */
    int size();

    /** @return the name of the module that opened this session, e.g. {@code "tcp"} */
    String module();

    /**
     * Stores a value under a key, visible to others after the next {@link #commit} and fence.
     *
     * @param key   the key (see the class comment)
     * @param value the bytes, copied now; may be empty
     * @throws IllegalArgumentException if the key is invalid or the value too large for the module
     * @throws IllegalStateException    if the session is closed
     */
    void put(String key, byte[] value);

    /**
     * As {@link #put(String, byte[])}, copying the bytes of a segment.
     *
     * @param key   the key
     * @param value the bytes (its whole size), copied now
     */
    void put(String key, MemorySegment value);

    /**
     * Hands every value put since the last commit to the job, to be collected by the next
     * collect-data fence. Does not wait for other processes.
     *
     * @throws IllegalStateException if the session is closed
     * @throws BootException         if the job can no longer be reached
     */
    void commit();

    /**
     * Waits until every participant entered a fence described the same way; with collect-data,
     * makes their committed data local.
     *
     * @param options participants, collect-data and timeout
     * @throws BootException            naming the ranks that died, closed or did not arrive in time,
     *                                  or the participants that described the fence differently
     * @throws IllegalArgumentException if the options name ranks outside the job or not the caller
     * @throws IllegalStateException    if the session is closed or another fence is in flight
     */
    void fence(FenceOptions options);

    /**
     * Starts a fence and returns at once.
     *
     * @param options as for {@link #fence}
     * @return completes when the fence did, or exceptionally with a {@link BootException}
     * @throws IllegalArgumentException if the options name ranks outside the job or not the caller
     * @throws IllegalStateException    if the session is closed or another fence is in flight
     */
    CompletableFuture<Void> fenceAsync(FenceOptions options);

    /**
     * Gets a value that is local now (or that the job's committed data holds).
     *
     * @param rank the owner
     * @param key  the key
     * @return a copy of the value
     * @throws BootException            if that rank has no committed value under that key
     * @throws IllegalArgumentException if the rank or key is invalid
     */
    default byte[] get(int rank, String key) { return get(rank, key, Duration.ZERO); }

    /**
     * Gets a value, waiting up to {@code timeout} for it to become available (a fence in flight
     * delivering it, or its owner committing it).
     *
     * @param rank    the owner
     * @param key     the key
     * @param timeout how long to wait if the value is not available yet; zero: do not wait
     * @return a copy of the value
     * @throws BootException            naming the rank and key if it is not available in time
     * @throws IllegalArgumentException if the rank or key is invalid
     */
    byte[] get(int rank, String key, Duration timeout);

    /**
     * Leaves the job. Fences of others that include this process fail from now on, naming it.
     * Idempotent.
     */
    @Override
    void close();
}
