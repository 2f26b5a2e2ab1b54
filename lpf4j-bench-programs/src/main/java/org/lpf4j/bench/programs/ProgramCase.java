package org.lpf4j.bench.programs;

import org.lpf4j.Context;
import org.lpf4j.examples.BspRun;

/**
 * One row group of {@code lpf bench --programs}: an lpf4j example program at a fixed size and
 * its peer at the same size. Serializable: a multi-process engine ships the case, inside the
 * section's SPMD function, to every JVM of the job, where only {@link #prepare} is called (the
 * peer runs in the JVM of process 0).
 */
public interface ProgramCase extends java.io.Serializable {

    /** @return the program's name, e.g. {@code "sample sort"} */
    String name();

    /** @return the size, e.g. {@code "n=10^7"} */
    String size();

    /** @return the peer's name, e.g. {@code "Arrays.parallelSort"} */
    String peerName();

    /**
     * Prepares this process's part of the lpf4j program; collective over the section.
     *
     * @param ctx a fresh context of this process
     * @return the prepared program
     */
    BspRun prepare(Context ctx);

    /**
     * @param threads the peer's parallelism, ≥ 1
     * @return the peer with its input
     */
    Peer peer(int threads);
}
