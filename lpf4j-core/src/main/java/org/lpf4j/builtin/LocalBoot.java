package org.lpf4j.builtin;

import org.lpf4j.spi.BootModule;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.boot.BootParameters;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.boot.LocalJob;

import java.util.Objects;

/**
 * Boot module {@code local}: a job of one JVM (the threads engine's case). Always usable, priority
 * 0. {@link #openSession()} opens a job of one process; an engine with several in-JVM processes
 * makes a {@link LocalJob} of its size and hands each process its session.
 */
public final class LocalBoot extends BuiltinModule implements BootModule {
    /** For {@link java.util.ServiceLoader}. */
    public LocalBoot() {}

    @Override public String name() { return "local"; }

    @Override public Query query() { return Query.run(0); }

    @Override public Membership membership() { return new Membership(0, 1, "this JVM"); }

    /** Registers the framework's {@code lpf.boot.fence.timeout} with the module every JVM has. */
    @Override public void open(ModuleParameters parameters) { Objects.requireNonNull(BootParameters.FENCE_TIMEOUT); }

    @Override public BootSession openSession() { return new LocalJob(1).session(0); }
}
