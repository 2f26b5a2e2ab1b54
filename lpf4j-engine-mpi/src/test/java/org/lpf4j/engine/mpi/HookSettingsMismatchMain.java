package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.Lpf;

/**
 * Run under mpirun by {@link EngineTest}: a program that initialises MPI itself hooks a section
 * over {@code MPI_COMM_WORLD} while rank 1 resolved another {@code lpf.engine.mpi.countExchange};
 * every rank's hook must throw before the section starts (their syncs would call different
 * collectives and hang), and MPI must stay usable. Prints {@code REFUSED <rank> <message>}.
 */
public final class HookSettingsMismatchMain {
    private HookSettingsMismatchMain() {}

    public static void main(String[] args) {
        Mpi mpi = Mpi.load(System.getProperty("lpf.engine.mpi.library"));
        mpi.initThread(Mpi.THREAD_SERIALIZED);
        long world = mpi.commWorld();
        int rank = mpi.rank(world);
        if (rank == 1) System.setProperty(MpiParameters.COUNT_EXCHANGE.key(), "sparse");
        try {
            Lpf.hook(MpiEngine.init(world), ctx -> { throw new AssertionError("must not start"); }, Args.NONE);
            System.out.println("STARTED " + rank);
        } catch (IllegalArgumentException e) {
            System.out.println("REFUSED " + rank + " " + e.getMessage());
        }
        mpi.barrier(world);
        mpi.finish();
    }
}
