package org.lpf4j.engine.mpi;

import org.lpf4j.Lpf;

/**
 * Run under mpirun by {@link EngineTest}: rank 1 (as the launcher numbers it) sets a different
 * {@code lpf.engine.mpi.pairsInRoundUpTo} than the others before {@code Lpf.root()}, rank 2 a
 * different {@code lpf.engine.mpi.countExchange}; every rank
 * must be refused at start with a message listing each pid's setting (else their syncs would call
 * different collectives). Prints {@code REFUSED <message>} or {@code STARTED}.
 */
public final class SettingsMismatchMain {
    private SettingsMismatchMain() {}

    public static void main(String[] args) {
        String rank = System.getenv().getOrDefault("OMPI_COMM_WORLD_RANK", System.getenv("PMI_RANK"));
        if ("1".equals(rank)) System.setProperty(MpiParameters.PAIRS_IN_ROUND_UP_TO.key(), "0");
        if ("2".equals(rank)) System.setProperty(MpiParameters.COUNT_EXCHANGE.key(), "sparse");
        try {
            Lpf.root().exec(1, ctx -> { });
            System.out.println("STARTED");
        } catch (RuntimeException e) {
            System.out.println("REFUSED " + e.getMessage());
        }
    }
}
