package org.lpf4j.spi.kit;

import org.lpf4j.Context;

import java.util.function.IntSupplier;
import java.util.function.IntUnaryOperator;

/**
 * What one process of a multi-JVM engine has sent to other JVMs since its section started, so
 * that the cost of a sync can be read as counts (the same on any machine) and not only as
 * times: {@code lpf run --profile}, the JFR {@code org.lpf4j.Superstep} event and {@code lpf bench}
 * show the difference over each sync. Counters only grow; a reader takes differences.
 *
 * <ul>
 *   <li>{@link #DATA_MESSAGES}: point-to-point messages of the superstep exchange (a packed stream
 *       of requests to a process, or its rest; the payload of one large put; a stream of replies
 *       to gets). Exact on every engine that counts.</li>
 *   <li>{@link #PAYLOAD_BYTES}: the put data and get replies those messages carry.</li>
 *   <li>{@link #HEADER_BYTES}: the rest of those messages: request headers, stream lengths,
 *       padding, combining operators' definitions (meta-data that travels with the data).</li>
 *   <li>{@link #META_MESSAGES}, {@link #META_BYTES}: the messages of the sync's collectives (the
 *       round's allreduce steps, the count exchange: all-to-all, or the sparse consensus's notes,
 *       acknowledgements and barrier steps) and a failed section's causes; {@code -1} where the
 *       transport cannot see them ({@link #metaCounted()} false: MPI's collectives run inside
 *       libmpi, whose algorithm and message count it does not tell).</li>
 *   <li>{@link #COLLECTIVES}: the collective operations the process entered (each round, each
 *       count exchange); exact on every engine that counts, including MPI.</li>
 *   <li>{@link #connections()}: connections the process holds open now, or {@code -1} where the
 *       engine has none of its own to count (MPI: libmpi manages its own).</li>
 *   <li>{@link #connections(int)}: those connections by the path their frames take:
 *       {@link #IN_JVM} (rings in this JVM's memory, a peer of the same JVM), {@link #SHARED_MEMORY}
 *       (rings in a shared-memory file, a peer of the same host) or {@link #TCP}; {@code -1} where
 *       not counted.</li>
 * </ul>
 * Bytes are message contents; a transport's own framing is not counted (the net engine adds a
 * 16-byte frame header to every message).
 *
 * <p>Cost: one to three {@code long} additions per message sent, no allocation. Used by the
 * thread that syncs (one at a time); read by the same thread.
 */
public final class WireCounts {
    /** Index of a counter in {@link #get} and {@link #read}. */
    public static final int DATA_MESSAGES = 0, PAYLOAD_BYTES = 1, HEADER_BYTES = 2, META_MESSAGES = 3, META_BYTES = 4,
            COLLECTIVES = 5;
    /** The number of counters. */
    public static final int COUNTERS = 6;
    /** A path of a connection, for {@link #connections(int)}: same JVM (rings in its memory), same host (a shared-memory file), TCP. */
    public static final int IN_JVM = 0, SHARED_MEMORY = 1, TCP = 2;
    /** The number of paths. */
    public static final int PATHS = 3;

    private final long[] counts = new long[COUNTERS];
    private final boolean metaCounted;
    private final IntSupplier connections;
    private final IntUnaryOperator byPath;

    /**
     * @param metaCounted whether the transport counts its collectives' messages ({@link #META_MESSAGES}, {@link #META_BYTES})
     * @param connections the connections open now (called when a reader asks), or null where not applicable
     */
    public WireCounts(boolean metaCounted, IntSupplier connections) {
        this(metaCounted, connections, null);
    }

    /**
     * @param byPath the connections open now that take a path ({@link #IN_JVM}, {@link #SHARED_MEMORY}, {@link #TCP}),
     *               called when a reader asks (must not allocate), or null where not counted
     */
    public WireCounts(boolean metaCounted, IntSupplier connections, IntUnaryOperator byPath) {
        this.metaCounted = metaCounted;
        this.connections = connections;
        this.byPath = byPath;
    }

    /** Counts point-to-point messages of the exchange that carry {@code payload} bytes of data and {@code header} bytes of the rest. */
    public void data(long messages, long payload, long header) {
        counts[DATA_MESSAGES] += messages;
        counts[PAYLOAD_BYTES] += payload;
        counts[HEADER_BYTES] += header;
    }

    /** Counts messages of a collective (or a cause) of {@code bytes} bytes in all. */
    public void meta(long messages, long bytes) {
        counts[META_MESSAGES] += messages;
        counts[META_BYTES] += bytes;
    }

    /** Counts one collective operation entered. */
    public void collective() { counts[COLLECTIVES]++; }

    /** @return whether {@link #META_MESSAGES} and {@link #META_BYTES} are counted (else they read -1) */
    public boolean metaCounted() { return metaCounted; }

    /**
     * @param counter one of the indices ({@link #DATA_MESSAGES} ...)
     * @return its value since the section started; -1 for the meta counters when not counted
     */
    public long get(int counter) {
        if (!metaCounted && (counter == META_MESSAGES || counter == META_BYTES)) return -1;
        return counts[counter];
    }

    /** Copies every counter ({@link #get}) into {@code into[0 .. COUNTERS)}; allocates nothing. */
    public void read(long[] into) {
        for (int i = 0; i < COUNTERS; i++) into[i] = get(i);
    }

    /** @return the connections open now, or -1 where the engine has none of its own */
    public int connections() { return connections == null ? -1 : connections.getAsInt(); }

    /**
     * @param path {@link #IN_JVM}, {@link #SHARED_MEMORY} or {@link #TCP}
     * @return the connections open now whose frames take that path, or -1 where not counted
     */
    public int connections(int path) {
        if (path < 0 || path >= PATHS) throw new IllegalArgumentException("WireCounts.connections(" + path + "): a path is 0 .. " + (PATHS - 1));
        return byPath == null ? -1 : byPath.applyAsInt(path);
    }

    /** What a context whose engine counts its messages implements (forwarding contexts pass it on). */
    public interface Source {
        /** @return this process's counts, or null when its engine counts none (one JVM: the threads engine) */
        WireCounts wireCounts();
    }

    /**
     * @param ctx a process's context, possibly wrapped by decorators ({@link ForwardingContext})
     * @return its engine's counts, or null when the engine counts none
     */
    public static WireCounts of(Context ctx) {
        return ctx instanceof Source s ? s.wireCounts() : null;
    }

    /** @return the header of the counters' columns, for a CSV: {@code data_messages,...,connections}, then the connections by path */
    public static String csvHeader() {
        return "data_messages,payload_bytes,header_bytes,meta_messages,meta_bytes,collectives,connections,"
                + "connections_in_jvm,connections_shm,connections_tcp";
    }

    @Override
    public String toString() {
        return "WireCounts[data " + counts[DATA_MESSAGES] + " msgs, " + counts[PAYLOAD_BYTES] + " B payload, " + counts[HEADER_BYTES]
                + " B headers; meta " + get(META_MESSAGES) + " msgs, " + get(META_BYTES) + " B; " + counts[COLLECTIVES]
                + " collectives; " + connections() + " connections (in-JVM " + connections(IN_JVM) + ", shared memory "
                + connections(SHARED_MEMORY) + ", TCP " + connections(TCP) + ")]";
    }
}
