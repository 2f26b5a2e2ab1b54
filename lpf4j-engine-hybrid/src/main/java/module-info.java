/**
 * The hybrid engine: one JVM per node, threads inside it (the threads engine's queues and
 * barriers), and any multi-JVM engine between the nodes ({@link org.lpf4j.spi.kit.NodeLevelEngine}:
 * MPI or net, {@code lpf.engine.hybrid.over}), found by name in the component registry at run
 * time; this module depends on neither. Over MPI, the MPI engine needs native access.
 */
module org.lpf4j.engine.hybrid {
    requires transitive org.lpf4j.core;
    requires org.lpf4j.engine.threads;
    requires org.lpf4j.superstep;
    exports org.lpf4j.engine.hybrid;

    provides org.lpf4j.spi.EngineProvider with org.lpf4j.engine.hybrid.HybridEngineProvider;
}
