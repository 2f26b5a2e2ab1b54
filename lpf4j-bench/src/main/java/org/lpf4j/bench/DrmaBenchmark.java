package org.lpf4j.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;

/**
 * One put or one get of {@code size} bytes between process 0 and the next process, plus the
 * sync that executes it, on the threads engine at p = 1 (to itself) and p = 2. The benchmark
 * thread is process 0 of a {@link MirroredSection}; the others only mirror its syncs. Run with
 * {@code bin/jmh DrmaBenchmark} ({@code -prof gc} shows the allocation per request + sync).
 */
public class DrmaBenchmark extends SectionBenchmark {
    /** Bytes per request. */
    @Param({"8", "1048576"})
    public long size;

    /** For JMH. */
    public DrmaBenchmark() {}

    @Override
    protected long areaBytes() { return size; }

    /** Puts {@code size} bytes to the next process's destination area and syncs. */
    @Benchmark
    public void putSync() {
        MirroredSection s = section;
        s.ctx().put(s.src(), 0, s.next(), s.dst(), 0, size);
        s.ctx().sync();
    }

    /** Gets {@code size} bytes from the next process's source area into the own destination area and syncs. */
    @Benchmark
    public void getSync() {
        MirroredSection s = section;
        s.ctx().get(s.next(), s.src(), 0, s.dst(), 0, size);
        s.ctx().sync();
    }
}
