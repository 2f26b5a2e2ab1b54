package org.lpf4j.tools;

import org.lpf4j.spi.Engines;
import org.lpf4j.spi.Parameters;
import org.lpf4j.testkit.Needs;

/**
 * Whether the tools' tests can launch an engine's JVMs here (its launcher found, its query saying
 * it can run). A test that needs an engine this machine cannot run is skipped on a developer's
 * machine and fails under {@code CI=true} ({@link Needs}), so that CI never passes the launched
 * runs without running them.
 */
final class Launchable {
    private Launchable() {}

    /** @return whether {@code engine} is installed, has a launcher and can run here */
    static boolean engine(String engine) {
        return Engines.installed().stream().anyMatch(e -> e.name().equals(engine) && e.launcher().isPresent() && e.query().canRun());
    }

    /** Skips (or under CI fails) the calling test unless {@code engine} can be launched here. */
    static void need(String engine) {
        Needs.that(engine(engine), () -> "the " + engine + " engine cannot run here (the mpi and hybrid engines need mpirun and libmpi)");
    }

    /** Skips (or under CI fails) the calling test unless the mpi engine can run MPICH's library under MPICH's launcher. */
    static void needMpich() {
        boolean can;
        Parameters.set("lpf.engine.mpi.library", "libmpich.so.12");
        try {
            can = engine("mpi");
        } finally {
            Parameters.clear("lpf.engine.mpi.library");
        }
        Needs.that(can, "the mpi engine cannot run MPICH here (it needs libmpich.so.12 and mpiexec.mpich)");
    }
}
