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

    /**
     * What a register or queue request beyond the capacity does, {@code lpf.capacity}:
     * {@code fixed} (the default: a clear {@link IllegalStateException}, nothing changed, as the
     * specification asks) or {@code grow} (the engine grows that capacity on the spot, an
     * allocation only then, and the request succeeds; with {@code lpf.debug} each process reports
     * its high-water marks at the end of the section, the values to reserve for fixed
     * capacities). Read once per context, when it is made.
     */
    public static final Parameters.Parameter<String> CAPACITY = Parameters.choice("lpf.capacity", "fixed",
            java.util.List.of("fixed", "grow"),
            "a register or queue request beyond the capacity: fixed (an exception, the default) or grow (the engine"
                    + " grows it then; with lpf.debug, the high-water marks are reported at the section's end)");

    /**
     * Whether measured g and l are kept on disk, {@code lpf.probe.cache}: {@code on} (read them
     * when present, else measure and write them), {@code refresh} (always measure, then write:
     * what {@code lpf probe} sets), {@code off} (measure in every JVM, touch no file).
     */
    public static final Parameters.Parameter<String> PROBE_CACHE = Parameters.choice("lpf.probe.cache", "on",
            java.util.List.of("on", "refresh", "off"),
            "keep measured g and l on disk per machine and engine: on (read, else measure and write), refresh"
                    + " (measure and write), off");

    /**
     * Where the probe cache lives, {@code lpf.probe.cacheDir}: empty means
     * {@code $XDG_CACHE_HOME/lpf4j}, else {@code ~/.cache/lpf4j}.
     */
    public static final Parameters.Parameter<String> PROBE_CACHE_DIR = Parameters.string("lpf.probe.cacheDir", "",
            "directory of the probe cache (empty: $XDG_CACHE_HOME/lpf4j, else ~/.cache/lpf4j)");

    /**
     * How engines copy a request's bytes, {@code lpf.copy}: {@code auto} (copies of at least
     * {@link org.lpf4j.spi.kit.BulkCopy#NATIVE_FROM} bytes between native segments go to the C
     * library's {@code memmove} when the core module has native access, every other copy is
     * {@code MemorySegment.copy}) or {@code java} (always {@code MemorySegment.copy}).
     */
    public static final Parameters.Parameter<String> COPY = Parameters.choice("lpf.copy", "auto",
            java.util.List.of("auto", "java"),
            "how engines copy request bytes: auto (large native copies by the C library's memmove when native"
                    + " access is enabled), java (always MemorySegment.copy)");
}
