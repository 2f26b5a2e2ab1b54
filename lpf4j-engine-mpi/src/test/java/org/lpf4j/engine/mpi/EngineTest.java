package org.lpf4j.engine.mpi;

import org.lpf4j.testkit.MpiJob;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's own scenarios under real MPI jobs: puts and gets of every size class at every p,
 * a throwing process; write conflicts on the large-put paths; combining puts; hook over existing
 * communicators.
 */
class EngineTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(180);

    @Test
    void ringOfPutsAndGetsAtEveryPOnOpenMpi() {
        MpiJob.Result r = MpiJob.openMpi().run(4, TIMEOUT, RingMain.class);
        ok(r, "ALL DONE size=4");
        for (int p = 1; p <= 4; p++) assertTrue(r.out().contains("RING OK p=" + p), r::both);
        assertTrue(r.out().contains("FATAL OK exec(p=4) failed: pid 3 threw"), r::both);
    }

    @Test
    void ringOfPutsAndGetsOnMpich() {
        MpiJob.Result r = MpiJob.mpich().run(3, TIMEOUT, RingMain.class);
        ok(r, "ALL DONE size=3");
    }

    @Test
    void writeConflictsOnTheLargePutPathsSerialise() {
        ok(MpiJob.openMpi().run(4, TIMEOUT, ConflictMain.class), "CONFLICTS OK");
    }

    @Test
    void combiningPutsAcrossProcesses() {
        MpiJob.Result r = MpiJob.openMpi().run(4, TIMEOUT, CombiningMain.class);
        ok(r, "COMBINING OK");
    }

    @Test
    void hookOverAProgramsOwnCommunicators() {
        MpiJob.Result r = MpiJob.openMpi().run(3, TIMEOUT, HookMain.class);
        ok(r, "HOOK OK 0");
        assertTrue(r.out().contains("HOOK OK 1") && r.out().contains("HOOK OK 2"), r::both);
    }

    @Test
    void ranksWithDifferentRoundSettingsAreRefusedAtStart() {
        MpiJob.Result r = MpiJob.openMpi().run(3, TIMEOUT, SettingsMismatchMain.class);
        assertFalse(r.timedOut(), r::both);
        assertFalse(r.out().contains("STARTED"), r::both);
        for (String s : new String[] {"different engine settings",
                "[pid 0: lpf.engine.mpi.pairsInRoundUpTo=44, lpf.engine.mpi.countExchange=auto, lpf.engine.mpi.sparseFrom=64, lpf.engine.mpi.syncTimeout=0]",
                "[pid 1: lpf.engine.mpi.pairsInRoundUpTo=0, lpf.engine.mpi.countExchange=auto, lpf.engine.mpi.sparseFrom=64, lpf.engine.mpi.syncTimeout=0]",
                "[pid 2: lpf.engine.mpi.pairsInRoundUpTo=44, lpf.engine.mpi.countExchange=sparse, lpf.engine.mpi.sparseFrom=64, lpf.engine.mpi.syncTimeout=0]"}) {
            assertTrue(r.out().contains(s), () -> "missing '" + s + "' in\n" + r.both());
        }
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }

    @Test
    void hookedMembersWithDifferentSettingsAreRefusedBeforeTheSectionStarts() {
        MpiJob.Result r = MpiJob.openMpi().run(3, TIMEOUT, HookSettingsMismatchMain.class);
        assertFalse(r.timedOut(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertFalse(r.out().contains("STARTED"), r::both);
        for (int rank = 0; rank < 3; rank++) {
            assertTrue(r.out().contains("REFUSED " + rank + " hook(MpiEngine.init("), r::both);
        }
        assertTrue(r.out().contains("have different engine settings (give every member the same); this member's:"
                + " lpf.engine.mpi.pairsInRoundUpTo=44, lpf.engine.mpi.countExchange=sparse"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }

    static void ok(MpiJob.Result r, String marker) {
        assertFalse(r.timedOut(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.out().contains(marker), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }
}
