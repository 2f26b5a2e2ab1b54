/**
 * The hybrid engine over a communicator of a program that already uses MPI
 * ({@link org.lpf4j.hybrid.mpi.MpiHybrid}): the one module that knows both the MPI engine and,
 * through the engine kit's {@link org.lpf4j.spi.kit.LayeredEngine}, the hybrid engine, so that
 * neither of them depends on the other.
 */
module org.lpf4j.hybrid.mpi {
    requires transitive org.lpf4j.core;
    requires org.lpf4j.engine.mpi;
    exports org.lpf4j.hybrid.mpi;
}
