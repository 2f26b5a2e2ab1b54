package org.lpf4j.spi;

/**
 * A module of the {@code boot} framework: tells a process which member of a parallel job it is
 * (in-JVM, an mpirun/PMIx or Slurm launch, lpf's own launcher). Multi-process engines ask the
 * selected boot module where they stand before they connect.
 */
public interface BootModule extends Component {
    @Override default Framework framework() { return Framework.BOOT; }

    /**
     * Where this process stands in its job.
     *
     * @param rank   this process's index in the job, 0 ≤ rank &lt; size
     * @param size   the number of processes of the job
     * @param source what the answer was read from, e.g. {@code "OMPI_COMM_WORLD_RANK"}
     */
    record Membership(int rank, int size, String source) {
        /** Checks 0 ≤ rank &lt; size. */
        public Membership {
            if (size < 1 || rank < 0 || rank >= size) {
                throw new IllegalArgumentException("Membership(rank=" + rank + ", size=" + size + ") from " + source);
            }
        }
    }

    /**
     * Called only after {@link #query()} said the module can run.
     *
     * @return this process's place in its job
     */
    Membership membership();
}
