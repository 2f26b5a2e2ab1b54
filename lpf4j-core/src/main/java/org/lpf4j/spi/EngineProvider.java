package org.lpf4j.spi;

import org.lpf4j.Context;

/**
 * What an engine implements to be found by {@link java.util.ServiceLoader} and chosen at run
 * time (the {@code engine} framework).
 */
public interface EngineProvider {
    /** @return the engine's name, e.g. {@code "threads"} */
    String name();

    /** @return 0..100; the usable engine of highest priority is the default */
    int priority();

    /** @return {@code null} if the engine can run in this JVM, otherwise why not */
    String unavailableReason();

    /** @return a new root context: one process, the whole machine for {@code exec} */
    Context root();
}
