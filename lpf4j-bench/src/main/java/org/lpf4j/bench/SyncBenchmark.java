package org.lpf4j.bench;

import org.openjdk.jmh.annotations.Benchmark;

/**
 * An empty superstep ({@code sync} without requests) of the selected engine (the threads engine unless lpf.engine says otherwise) at p = 1 and 2: the
 * benchmark thread is process 0 of a {@link MirroredSection}. Run with
 * {@code bin/jmh SyncBenchmark} ({@code -prof gc} shows the allocation per sync).
 */
public class SyncBenchmark extends SectionBenchmark {
    /** For JMH. */
    public SyncBenchmark() {}

    @Override
    protected long areaBytes() { return Long.BYTES; }

    /** One empty superstep. */
    @Benchmark
    public void emptySync() { section.ctx().sync(); }
}
