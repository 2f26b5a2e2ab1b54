package org.lpf4j.superstep;

import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;

/**
 * The requests a rank brings to one superstep exchange, and how its pids map to ranks: the
 * rank's {@link #processes()} local processes each have a {@link RequestList} (requests for
 * processes of <em>other</em> ranks, or of any rank for an engine with one process per rank, addressed by global
 * pid) and a {@link SlotRegister} (where requests from other ranks land or read). An engine with one
 * process per rank (mpi) is the case of one local process per rank with pid = rank.
 *
 * <p>The exchange reads the lists and registers only while every local process waits in the sync;
 * it writes each put's {@code putTag} (the attribute id) and each get's {@code getTag} (where its
 * reply lands). Implementations answer in O(1) and allocate nothing.
 */
public interface NodeRequests {
    /** @return how many processes of the section live on this rank (at least 1) */
    int processes();

    /** @return the requests local process {@code local} queued in this superstep */
    RequestList requests(int local);

    /** @return the register of local process {@code local} */
    SlotRegister register(int local);

    /** @return the rank that process {@code pid} lives on */
    int rankOf(int pid);

    /** @return the local index of process {@code pid} on its rank */
    int localOf(int pid);

    /** @return the global pid of local process {@code local} of rank {@code rank} */
    int pidOf(int rank, int local);
}
