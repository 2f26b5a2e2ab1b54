package org.lpf4j.engine.mpi.layered;

import java.util.List;

/**
 * What the MPI launcher tells this JVM about its host before MPI is initialised: read from the
 * environment the launcher gave the process, so it costs no MPI call (start-up only).
 */
public final class LaunchedHost {
    private LaunchedHost() {}

    /**
     * @return {@code {local rank, ranks on this host}} as Hydra ({@code MPI_LOCALRANKID},
     *         {@code MPI_LOCALNRANKS}) or Open MPI ({@code OMPI_COMM_WORLD_LOCAL_RANK},
     *         {@code OMPI_COMM_WORLD_LOCAL_SIZE}) gives them, or null if the launcher gives neither
     */
    public static int[] localRank() {
        for (String[] v : List.of(new String[] {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
                new String[] {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"})) {
            String r = System.getenv(v[0]), n = System.getenv(v[1]);
            if (r != null && n != null && r.strip().matches("\\d{1,6}") && n.strip().matches("\\d{1,6}")) {
                return new int[] {Integer.parseInt(r.strip()), Integer.parseInt(n.strip())};
            }
        }
        return null;
    }

    /** @return the job's ranks on this host as the launcher says (Open MPI, then Hydra), 1 if it does not say */
    public static int ranksOnThisHost() {
        for (String v : List.of("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS")) {
            String n = System.getenv(v);
            if (n != null) return n.strip().matches("\\d{1,6}") ? Math.max(1, Integer.parseInt(n.strip())) : 1;
        }
        return 1;
    }
}
