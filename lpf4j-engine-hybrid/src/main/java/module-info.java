/**
 * The hybrid engine: one JVM per node, threads inside it (the threads engine's queues and
 * barriers), a multi-JVM engine between nodes: MPI's binding and sections, or the net engine's
 * ({@code lpf.engine.hybrid.over=net}, found by name at run time). Over MPI it needs native access
 * for {@code org.lpf4j.engine.mpi} (or {@code ALL-UNNAMED} on the class path).
 */
module org.lpf4j.engine.hybrid {
    requires transitive org.lpf4j.core;
    requires org.lpf4j.engine.threads;
    requires org.lpf4j.engine.mpi;
    requires org.lpf4j.superstep;
    exports org.lpf4j.engine.hybrid;

    provides org.lpf4j.spi.EngineProvider with org.lpf4j.engine.hybrid.HybridEngineProvider;
}
