package org.lpf4j.spi.boot;

import org.lpf4j.spi.Parameters;

import java.time.Duration;

/** The {@code boot} framework's own parameters (those of no single module). */
public final class BootParameters {
    private BootParameters() {}

    /** {@code lpf.boot.fence.timeout}: the default fence timeout in milliseconds. */
    public static final Parameters.Parameter<Integer> FENCE_TIMEOUT = Parameters.integer("lpf.boot.fence.timeout",
            10_000, 1, 3_600_000, "default time a boot fence may take (ms) before it fails naming the ranks that did not arrive");

    /** @return the current default fence timeout */
    public static Duration fenceTimeout() { return Duration.ofMillis(FENCE_TIMEOUT.get()); }
}
