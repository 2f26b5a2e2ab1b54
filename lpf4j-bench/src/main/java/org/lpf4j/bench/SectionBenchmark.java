package org.lpf4j.bench;

import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Common state of the engine benchmarks: a {@link MirroredSection} of {@link #p} processes on the
 * threads engine, opened per trial, whose process 0 is the JMH benchmark thread. Average time per
 * operation in nanoseconds; one fork, short iterations (override on the command line).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class SectionBenchmark {
    /** Processes of the section. */
    @Param({"1", "2"})
    public int p;

    /** The section, between setup and teardown. */
    protected MirroredSection section;

    /** @return bytes of each process's source and destination areas */
    protected abstract long areaBytes();

    /** Starts the section; the JMH thread becomes its process 0. */
    @Setup(Level.Trial)
    public void open() { section = MirroredSection.open(p, areaBytes()); }

    /** Stops the mirroring processes and joins every thread of the section. */
    @TearDown(Level.Trial)
    public void close() { section.close(); }
}
