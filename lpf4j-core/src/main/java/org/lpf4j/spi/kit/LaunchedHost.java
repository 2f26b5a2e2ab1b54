package org.lpf4j.spi.kit;

/**
 * What the launcher that started this JVM (Open MPI's mpirun, MPICH's Hydra, Slurm's srun) tells it
 * about its host: its rank among the job's processes on this host and their number, read from the
 * environment the launcher gave the process, before any engine starts. For the engines between
 * JVMs ({@link NodeLevelEngine#localRank}) and what they need themselves. Costs a few environment
 * lookups (start-up only).
 */
public final class LaunchedHost {
    private LaunchedHost() {}

    /**
     * @return {@code {local rank, ranks on this host}} as Slurm's srun ({@link #slurmLocalRank}) or
     *         the launcher's local variables ({@link LaunchVariables}: Open MPI, Hydra) give them, or
     *         null if the launcher gives none
     */
    public static int[] localRank() {
        int[] slurm = slurmLocalRank(System::getenv);
        if (slurm != null) return slurm;
        for (LaunchVariables v : LaunchVariables.values()) {
            if (v.localRankVariable() == null) continue;
            String r = System.getenv(v.localRankVariable()), n = System.getenv(v.localSizeVariable());
            if (r != null && n != null && r.strip().matches("\\d{1,6}") && n.strip().matches("\\d{1,6}")) {
                return new int[] {Integer.parseInt(r.strip()), Integer.parseInt(n.strip())};
            }
        }
        return null;
    }

    /**
     * In a task of an srun step: {@code SLURM_LOCALID}, and this node's entry of
     * {@code SLURM_STEP_TASKS_PER_NODE} ({@code 4}, {@code 2(x3),1}: counts per node in node order)
     * at {@code SLURM_NODEID}.
     *
     * @param env the environment
     * @return {@code {local rank, tasks on this node}}, or null outside a step or if a value does not parse
     */
    static int[] slurmLocalRank(java.util.function.UnaryOperator<String> env) {
        String local = env.apply("SLURM_LOCALID"), node = env.apply("SLURM_NODEID"), perNode = env.apply("SLURM_STEP_TASKS_PER_NODE");
        if (local == null || node == null || perNode == null || !local.strip().matches("\\d{1,6}") || !node.strip().matches("\\d{1,6}")) {
            return null;
        }
        int want = Integer.parseInt(node.strip()), at = 0;
        for (String part : perNode.strip().split(",")) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,6})(?:\\(x(\\d{1,6})\\))?").matcher(part);
            if (!m.matches()) return null;
            at += m.group(2) == null ? 1 : Integer.parseInt(m.group(2));
            if (want < at) return new int[] {Integer.parseInt(local.strip()), Math.max(1, Integer.parseInt(m.group(1)))};
        }
        return null;
    }

    /** @return the job's ranks on this host as the launcher says (Slurm, then {@link LaunchVariables}' order), 1 if it does not say */
    public static int ranksOnThisHost() {
        int[] slurm = slurmLocalRank(System::getenv);
        if (slurm != null) return slurm[1];
        for (LaunchVariables v : LaunchVariables.values()) {
            if (v.localSizeVariable() == null) continue;
            String n = System.getenv(v.localSizeVariable());
            if (n != null) return n.strip().matches("\\d{1,6}") ? Math.max(1, Integer.parseInt(n.strip())) : 1;
        }
        return 1;
    }
}
