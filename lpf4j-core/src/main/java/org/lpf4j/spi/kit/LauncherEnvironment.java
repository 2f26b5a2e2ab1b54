package org.lpf4j.spi.kit;

/**
 * The environment variables of MPI libraries and their transports that lpf4j's launchers and
 * engines set or read, spelled once. (Slurm's are in {@link Slurm}, the launchers' rank and size
 * variables in {@link LaunchVariables}, the tcp boot's in {@link org.lpf4j.spi.boot.BootEnvironment}.)
 */
public final class LauncherEnvironment {
    private LauncherEnvironment() {}

    /** Open MPI: "1" makes a waiting rank yield its core (what mpirun's {@code --oversubscribe} implies). */
    public static final String OMPI_YIELD_WHEN_IDLE = "OMPI_MCA_mpi_yield_when_idle";
    /** Open MPI: lets mpirun run as root (with {@link #OMPI_ALLOW_RUN_AS_ROOT_CONFIRM}). */
    public static final String OMPI_ALLOW_RUN_AS_ROOT = "OMPI_ALLOW_RUN_AS_ROOT";
    /** Open MPI: confirms {@link #OMPI_ALLOW_RUN_AS_ROOT}. */
    public static final String OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM";
    /** UCX: the signals it handles as errors; empty: none (else it replaces the JVM's own handlers). */
    public static final String UCX_ERROR_SIGNALS = "UCX_ERROR_SIGNALS";
}
