/**
 * The threads engine: every LPF process is a platform thread of this JVM (see
 * {@link org.lpf4j.engine.threads.ThreadsEngine}). Depends on the core only (JDK only).
 * {@code org.lpf4j.engine.threads.group} holds its queues, barriers and waiting policy for other
 * engines (the hybrid engine) — an engine-only API, not for programs.
 */
module org.lpf4j.engine.threads {
    requires transitive org.lpf4j.core;
    exports org.lpf4j.engine.threads;
    exports org.lpf4j.engine.threads.group;

    provides org.lpf4j.spi.EngineProvider with org.lpf4j.engine.threads.ThreadsEngineProvider;
}
