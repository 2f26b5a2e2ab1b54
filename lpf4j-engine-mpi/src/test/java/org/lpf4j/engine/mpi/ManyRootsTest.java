package org.lpf4j.engine.mpi;

import org.lpf4j.testkit.MpiJob;
import org.junit.jupiter.api.Test;

import java.time.Duration;

/**
 * {@code Lpf.root()} may be asked for as often as a program likes: every call returns a root of the
 * same job, and none keeps a communicator of its own. MPICH has 2048 context ids in all: with a
 * communicator per root, the 2043rd call failed ("Too many communicators"); Open MPI has no such
 * bound, so only MPICH can show the leak.
 */
class ManyRootsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(180);

    @Test
    void moreRootsThanMpichHasCommunicators() {
        EngineTest.ok(MpiJob.mpich().run(2, TIMEOUT, ManyRootsMain.class, "2200"), "ROOTS OK 2200");
    }
}
