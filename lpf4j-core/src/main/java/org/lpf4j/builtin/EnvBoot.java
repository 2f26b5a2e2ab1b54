package org.lpf4j.builtin;

import org.lpf4j.spi.BootModule;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.kit.LaunchVariables;

import java.util.function.UnaryOperator;

/**
 * Boot module {@code env}: reads rank and size from the variables a launcher sets (Open MPI's
 * mpirun, PMI/PMIx launchers such as MPICH's hydra, the tasks of a Slurm srun step). Priority 50 when it finds them
 * (its native environment), declined otherwise.
 */
public final class EnvBoot extends BuiltinModule implements BootModule {
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
                    java.util.Arrays.stream(LaunchVariables.values()).map(LaunchVariables::rankVariable).toList()) + ")");
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

    /** @return the rank and size variables of the launcher that started this process, or null */
    private String[] find() {
        LaunchVariables v = LaunchVariables.of(environment);
        return v == null ? null : new String[] {v.rankVariable(), v.sizeVariable()};
    }
}
