package org.lpf4j.spi;

import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.BootSession;

/**
 * A module of the {@code boot} framework: tells a process which member of a parallel job it is
 * (in-JVM, an mpirun/PMIx or Slurm launch, lpf's own launcher). Multi-process engines ask the
 * selected boot module where they stand before they connect, then {@linkplain #openSession() open a
 * session} to exchange endpoints the PMIx way (put, commit, fence, get).
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

    /**
     * Joins this process's job: called only after {@link #query()} said the module can run. May
     * block until the job's coordinator is reachable (bounded by the module's timeouts).
     *
     * @return this process's session; the caller closes it
     * @throws BootException if the job cannot be joined; the default: the module tells rank and
     *                       size only
     */
    default BootSession openSession() {
        throw new BootException("boot module '" + name() + "' tells rank and size only and opens no session; "
                + "choose one that does (lpf.boot=tcp, pmix or local)");
    }
}
