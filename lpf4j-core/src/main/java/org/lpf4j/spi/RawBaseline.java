package org.lpf4j.spi;

import org.lpf4j.Context;

import java.lang.foreign.MemorySegment;

/**
 * The raw baseline: the transport beneath a multi-process engine, used directly, without LPF: the yardstick that
 * {@code lpf bench} times beside the engine's own rows in the same run, so that their ratio
 * compares the two under the same machine state (for the MPI engine: MPI through the engine's
 * binding on the section's own communicator). An engine offers one through
 * {@link EngineProvider#rawBaseline()}; with a {@link EngineProvider#launcher()} as well,
 * {@code lpf bench} then runs under that launcher instead of its in-JVM table.
 *
 * <p>This object holds nothing and costs nothing to get; {@link #open} is collective over a
 * section of the engine and gives its processes the operations to time. Every operation is one
 * call (or one collective) of the layer below and allocates nothing, so the rows show that
 * layer's own cost.
 */
public interface RawBaseline {
    /**
     * @return what the benchmark's header names, e.g. the library and its version; call only in a
     *         process of the engine's job after its root context exists
     */
    String description();

    /**
     * @return how the rows name this transport's {@linkplain Section#barrier() barrier},
     *         {@linkplain Window one-sided put with its completion} and
     *         {@linkplain Section#sendReceive two-sided exchange}
     */
    Names names();

    /**
     * Row names of the operations, e.g. {@code MPI_Barrier}.
     *
     * @param barrier     {@link Section#barrier()}
     * @param put         {@link Window#put} followed by {@link Window#complete()}
     * @param sendReceive {@link Section#sendReceive}
     */
    record Names(String barrier, String put, String sendReceive) {}

    /**
     * Opens the transport of the section {@code ctx} belongs to. Collective: every process of the
     * section calls it with its own context, in the same order relative to its other collective
     * calls.
     *
     * @param ctx a context of this engine (not wrapped, e.g. by the debug layer)
     * @return the section's transport, to close before the section ends
     * @throws IllegalArgumentException if {@code ctx} is not one of this engine's contexts
     */
    Section open(Context ctx);

    /**
     * The transport over one section's processes (ranks = pids). Used by one thread per process.
     */
    interface Section extends AutoCloseable {
        /** Waits until every process of the section has called it. */
        void barrier();

        /**
         * @param value this process's value (only pid 0's counts)
         * @return pid 0's value, on every process; collective
         */
        long broadcast(long value);

        /**
         * @param mine this process's flag
         * @return whether it is true on some process, on every process; collective
         */
        boolean anyOf(boolean mine);

        /**
         * Opens a one-sided window over {@code area} on every process. Collective.
         *
         * @param area this process's memory that the others put into (native, not heap)
         * @return the window, to close (collectively) after use
         */
        Window window(MemorySegment area);

        /**
         * Sends {@code bytes} of {@code source} to pid {@code to} and receives {@code bytes} from pid
         * {@code from} into {@code target}, and returns when both have completed. Every process
         * calls it at once, each with matching partners (e.g. a ring).
         *
         * @param source native memory to send, at least {@code bytes} long
         * @param to     the receiving pid
         * @param target native memory to receive into, at least {@code bytes} long
         * @param from   the sending pid
         * @param bytes  how much, at most {@link Integer#MAX_VALUE}
         */
        void sendReceive(MemorySegment source, int to, MemorySegment target, int from, long bytes);

        /** Releases what {@link RawBaseline#open} made; the section's own state is not touched. */
        @Override void close();
    }

    /** A one-sided window over one area per process ({@link Section#window}). */
    interface Window extends AutoCloseable {
        /**
         * Starts a put into pid {@code target}'s area; it completes at the next {@link #complete()}.
         *
         * @param source native memory, at least {@code bytes} long
         * @param bytes  how much, at most {@link Integer#MAX_VALUE}
         * @param target the pid whose area receives it
         * @param offset where in that area
         */
        void put(MemorySegment source, long bytes, int target, long offset);

        /** Completes every put of every process into this window (a fence). Collective. */
        void complete();

        /** Frees the window. Collective. */
        @Override void close();
    }
}
