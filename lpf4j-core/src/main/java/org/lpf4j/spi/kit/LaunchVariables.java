package org.lpf4j.spi.kit;

import java.util.function.UnaryOperator;

/**
 * The environment variables in which launchers tell a process its place in a job: its rank, the
 * job's size, and (where the launcher says) its rank among the job's processes on this host and
 * their number. The one home of these names, in the order they are read, for the boot modules and
 * the engines: the first launcher whose rank and size are both set is the one that started the
 * process. Slurm's are read only in a task of an srun step ({@link Slurm#stepTask}): an allocation's
 * shell has some of them too. Reading costs a few environment lookups.
 */
public enum LaunchVariables {
    /** Open MPI's mpirun (with PRRTE it sets the PMIx variables too). */
    OPEN_MPI("Open MPI's mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
            "OMPI_COMM_WORLD_LOCAL_SIZE"),
    /** Any PMIx launcher (prterun, srun --mpi=pmix). */
    PMIX("a PMIx launcher", "PMIX_RANK", "PMIX_SIZE", null, null),
    /** A PMI launcher such as MPICH's Hydra (mpiexec.mpich) or srun --mpi=pmi2. */
    PMI("a PMI launcher such as MPICH's Hydra (mpiexec.mpich)", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
    /** A task of a Slurm srun step (its local figures come from {@code SLURM_LOCALID} and the tasks per node). */
    SLURM_STEP("Slurm's srun", Slurm.PROCID, Slurm.STEP_NUM_TASKS, null, null);

    private final String launcher, rank, size, localRank, localSize;

    LaunchVariables(String launcher, String rank, String size, String localRank, String localSize) {
        this.launcher = launcher;
        this.rank = rank;
        this.size = size;
        this.localRank = localRank;
        this.localSize = localSize;
    }

    /** @return who sets these variables, for messages */
    public String launcher() { return launcher; }

    /** @return the variable with the process's rank */
    public String rankVariable() { return rank; }

    /** @return the variable with the job's size */
    public String sizeVariable() { return size; }

    /** @return the variable with the process's rank on this host, or null if this launcher gives none */
    public String localRankVariable() { return localRank; }

    /** @return the variable with the job's processes on this host, or null if this launcher gives none */
    public String localSizeVariable() { return localSize; }

    /** @return whether this launcher's rank and size variables are set (for Slurm: in a task of a step) */
    public boolean setIn(UnaryOperator<String> env) {
        if (this == SLURM_STEP && !Slurm.stepTask(env)) return false;
        return env.apply(rank) != null && env.apply(size) != null;
    }

    /**
     * @param env the environment
     * @return the first launcher, in declaration order, whose rank and size are set; null if none
     */
    public static LaunchVariables of(UnaryOperator<String> env) {
        for (LaunchVariables v : values()) if (v.setIn(env)) return v;
        return null;
    }
}
