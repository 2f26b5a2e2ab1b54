package org.lpf4j.spi;

/**
 * The parameters of the core itself (not of a module), declared once here so that the component
 * system registers them without depending on the API classes that read them ({@code Lpf}).
 */
public final class CoreParameters {
    private CoreParameters() {}

    /** Whether contexts are wrapped in the checking layer, {@code lpf.debug}. */
    public static final Parameters.Parameter<Boolean> DEBUG = Parameters.bool("lpf.debug", false,
            "check for programming errors (slow): wrap every context in the debug layer");
}
