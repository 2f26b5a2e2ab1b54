/**
 * The MPI engine: lpf4j over an MPI job (Open MPI or MPICH), calling libmpi through
 * {@code java.lang.foreign} only. Needs {@code --enable-native-access=org.lpf4j.engine.mpi}
 * (or {@code ALL-UNNAMED} on the class path).
 */
module org.lpf4j.engine.mpi {
    requires transitive org.lpf4j.core;
    requires org.lpf4j.superstep;
    exports org.lpf4j.engine.mpi;

    provides org.lpf4j.spi.EngineProvider with org.lpf4j.engine.mpi.MpiEngineProvider;
}
