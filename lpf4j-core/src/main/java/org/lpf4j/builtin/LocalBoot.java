package org.lpf4j.builtin;

import org.lpf4j.spi.BootModule;
import org.lpf4j.spi.Query;

/** Boot module {@code local}: a job of one JVM (the threads engine's case). Always usable, priority 0. */
public final class LocalBoot extends BuiltinModule implements BootModule {
    /** For {@link java.util.ServiceLoader}. */
    public LocalBoot() {}

    @Override public String name() { return "local"; }

    @Override public Query query() { return Query.run(0); }

    @Override public Membership membership() { return new Membership(0, 1, "this JVM"); }
}
