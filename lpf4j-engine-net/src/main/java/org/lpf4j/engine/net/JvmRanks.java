package org.lpf4j.engine.net;

import org.lpf4j.spi.boot.AbstractBootSession;
import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.boot.FenceOptions;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Several ranks of a net job in one JVM ({@code lpf.engine.net.perJvm} = k): the JVM's one boot
 * session (rank j of J JVMs, any boot module) carries the sessions of job ranks
 * {@code j·k .. j·k + k − 1} (fewer in the last JVM), so that p = 256 processes can run as threads
 * of a few JVMs, each with its own mesh over real sockets. A rank's values travel under the key
 * {@code v<rank>/<key>} of its JVM's session; a collect-data fence of all ranks is one fence of the
 * JVMs, made by the last of the JVM's ranks to arrive after every local rank committed.
 *
 * <p>Only what the net engine's rendezvous uses is supported: put, commit, collect-data or barrier
 * fences of all ranks, get. A fence of a subset of ranks is refused. Thread-safe (one monitor);
 * closing the last local rank's session closes the JVM's.
 */
final class JvmRanks {
    private final BootSession jvm;
    private final int perJvm, first, count, size;
    private final Map<String, byte[]> committed = new HashMap<>();
    private int arrived, open;
    private long generation;
    private RuntimeException failure;

    /**
     * @param jvm    this JVM's boot session (rank j of J)
     * @param perJvm k, the ranks each JVM hosts
     * @param size   p, the job's ranks ({@code ≤ J·k}, more than {@code (J − 1)·k})
     */
    JvmRanks(BootSession jvm, int perJvm, int size) {
        int jvms = (size + perJvm - 1) / perJvm;
        if (perJvm < 1 || jvms != jvm.size()) {
            throw new IllegalArgumentException("lpf4j net: " + size + " processes at " + perJvm + " per JVM need " + jvms
                    + " JVMs, but the boot module (" + jvm.module() + ") started " + jvm.size() + " (" + NetParameters.PER_JVM.key() + ")");
        }
        this.jvm = jvm;
        this.perJvm = perJvm;
        this.size = size;
        this.first = jvm.rank() * perJvm;
        this.count = Math.min(perJvm, size - first);
        this.open = count;
    }

    /** @return the job ranks this JVM hosts */
    int count() { return count; }

    /** @return the job rank of this JVM's i-th process */
    int rank(int i) { return first + i; }

    /** @return the session of this JVM's i-th rank (open each once) */
    BootSession session(int i) { return new Member(first + i); }

    private static String key(int rank, String key) { return "v" + rank + "/" + key; }

    /** Waits for every local rank, then (the last one) fences the JVMs. */
    private synchronized void fence(FenceOptions options) {
        if (!options.all()) throw new IllegalArgumentException("lpf4j net (" + NetParameters.PER_JVM.key() + "): a fence of some ranks "
                + options.describeParticipants() + " is not supported where a JVM hosts several ranks");
        long mine = generation;
        if (++arrived == count) {
            arrived = 0;
            try {
                committed.forEach(jvm::put);
                committed.clear();
                jvm.commit();
                jvm.fence(options);
                failure = null;
            } catch (RuntimeException e) {
                failure = e;
            }
            generation++;
            notifyAll();
        } else {
            long deadline = System.nanoTime() + options.effectiveTimeout().toNanos() * 2;
            while (generation == mine) {
                long left = deadline - System.nanoTime();
                if (left <= 0) throw new BootException("lpf4j net: not every rank of this JVM (" + first + " .. "
                        + (first + count - 1) + ") reached the fence in time", new int[0], new TimeoutException());
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new BootException("lpf4j net: interrupted in a fence", new int[0], e);
                }
            }
        }
        if (failure != null) throw failure;
    }

    private synchronized void close() {
        if (--open == 0) jvm.close();
    }

    /** One rank's session: its values are the JVM's under {@link #key}. */
    private final class Member implements BootSession {
        private final int rank;
        private final Map<String, byte[]> mine = new HashMap<>(), pending = new HashMap<>();
        private boolean closed;

        Member(int rank) { this.rank = rank; }

        @Override public int rank() { return rank; }

        @Override public int size() { return size; }

        @Override public String module() { return jvm.module(); }

        @Override
        public void put(String key, byte[] value) {
            AbstractBootSession.checkKey("put", key);
            synchronized (JvmRanks.this) {
                if (closed) throw new IllegalStateException("put: the session of rank " + rank + " is closed");
                mine.put(key, value.clone());
                pending.put(key, value.clone());
            }
        }

        @Override
        public void put(String key, MemorySegment value) { put(key, value.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)); }

        @Override
        public void commit() {
            synchronized (JvmRanks.this) {
                if (closed) throw new IllegalStateException("commit: the session of rank " + rank + " is closed");
                pending.forEach((k, v) -> committed.put(JvmRanks.key(rank, k), v));
                pending.clear();
            }
        }

        @Override
        public void fence(FenceOptions options) { JvmRanks.this.fence(options); }

        @Override
        public CompletableFuture<Void> fenceAsync(FenceOptions options) {
            // A thread of its own: the fence blocks until every local rank arrived.
            return CompletableFuture.runAsync(() -> JvmRanks.this.fence(options), r -> Thread.ofPlatform().daemon().start(r));
        }

        @Override
        public byte[] get(int owner, String key, Duration timeout) {
            if (owner < 0 || owner >= size) throw new IllegalArgumentException("get: rank " + owner + " not in [0, " + size + ")");
            if (owner == rank) {
                synchronized (JvmRanks.this) {
                    byte[] v = mine.get(key);
                    if (v != null) return v.clone();
                }
            }
            return jvm.get(owner / perJvm, JvmRanks.key(owner, key), timeout);
        }

        @Override
        public void close() {
            synchronized (JvmRanks.this) {
                if (closed) return;
                closed = true;
            }
            JvmRanks.this.close();
        }
    }
}
