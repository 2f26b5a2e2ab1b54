/**
 * The LPF core: the public API ({@code org.lpf4j}), what engines implement ({@code org.lpf4j.spi})
 * and the shared-memory threads engine. Depends on nothing outside the JDK.
 */
module org.lpf4j.core {
    exports org.lpf4j;
    exports org.lpf4j.spi;
    exports org.lpf4j.engine.threads;

    uses org.lpf4j.spi.EngineProvider;
    provides org.lpf4j.spi.EngineProvider with org.lpf4j.engine.threads.ThreadsEngineProvider;
}
