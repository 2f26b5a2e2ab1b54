package org.lpf4j.builtin;

import org.lpf4j.spi.BootModule;
import org.lpf4j.spi.Query;

import java.util.function.UnaryOperator;

/**
 * Boot module {@code env}: reads rank and size from the variables a launcher sets (Open MPI's
 * mpirun, PMI/PMIx launchers such as MPICH's hydra, the tasks of a Slurm srun step). Priority 50 when it finds them
 * (its native environment), declined otherwise.
 */
public final class EnvBoot extends BuiltinModule implements BootModule {
    /** Rank and size variable pairs, in the order they are tried. */
    private static final String[][] VARIABLES = {
            {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
            {"PMIX_RANK", "PMIX_SIZE"},
            {"PMI_RANK", "PMI_SIZE"},
            // Not SLURM_NTASKS: salloc's shell and a batch script have it too (and the batch script a
            // SLURM_PROCID of 0), but they are no task of a parallel job; only a step's tasks have this.
            {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS"},
    };

    private final UnaryOperator<String> environment;

    /** For {@link java.util.ServiceLoader}: reads the real environment. */
    public EnvBoot() { this(System::getenv); }

    /** @param environment the variable lookup (tests pass a map's {@code get}) */
    public EnvBoot(UnaryOperator<String> environment) { this.environment = environment; }

    @Override public String name() { return "env"; }


    @Override
    public Query query() {
        String[] found = find();
        if (found == null) {
            return Query.decline("no launcher variables set (" + String.join(", ",
                    java.util.Arrays.stream(VARIABLES).map(v -> v[0]).toList()) + ")");
        }
        try {
            membership();
        } catch (IllegalArgumentException e) {
            return Query.decline(e.getMessage());
        }
        return Query.run(50);
    }

    @Override
    public Membership membership() {
        String[] v = find();
        if (v == null) throw new IllegalStateException("boot env: no launcher variables set");
        try {
            return new Membership(Integer.parseInt(environment.apply(v[0]).trim()),
                    Integer.parseInt(environment.apply(v[1]).trim()), v[0] + "/" + v[1]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("boot env: " + v[0] + "='" + environment.apply(v[0]) + "', " + v[1]
                    + "='" + environment.apply(v[1]) + "' are not integers");
        }
    }

    private String[] find() {
        for (String[] v : VARIABLES) {
            if (environment.apply(v[0]) != null && environment.apply(v[1]) != null) return v;
        }
        return null;
    }
}
