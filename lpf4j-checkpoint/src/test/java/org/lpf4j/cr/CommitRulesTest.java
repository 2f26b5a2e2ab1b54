package org.lpf4j.cr;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lpf4j.Args;
import org.lpf4j.Lpf;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Parameters;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The commit rule under failed writes and writes of unequal speed: a committed checkpoint always
 * has every process's part (scenarios found in review: a failure masked by a later one at another
 * process; resume verdicts taken for write reports; the last checkpoint committed by flush).
 */
class CommitRulesTest {
    @TempDir Path dir;

    @BeforeEach
    void files() {
        Components.installed();
        Parameters.set("lpf.cr", "files");
        Parameters.set("lpf.cr.files.dir", dir.toString());
        Parameters.set("lpf.cr.files.keep", "100");
    }

    @AfterEach
    void clear() {
        for (String k : List.of("lpf.cr", "lpf.cr.files.dir", "lpf.cr.files.keep", "lpf.cr.files.resume")) Parameters.clear(k);
    }

    private void assertEveryCommittedCheckpointIsWhole(int p) {
        for (long c : new CheckpointDirectory(dir).committed()) {
            for (int q = 0; q < p; q++) {
                assertTrue(Files.exists(dir.resolve(String.format("cp-%010d/part-%d.lpfcp", c, q))),
                        "checkpoint " + c + " is committed without the part of pid " + q);
            }
        }
    }

    @Test
    void aFailureIsNeverMaskedByALaterOneAtAnotherProcess() {
        int p = 3;
        String cp = dir.toString(); // a path the function can carry to another JVM
        Lpf.root().exec(p, WithCheckpoints.spmd("mask", (ctx, cr) -> {
            try (Arena arena = Arena.ofShared()) {
                // pid 2's part is large, so its writes finish after the others'.
                cr.protect("data", ctx.pid() == 2 ? arena.allocate(32L << 20, 8) : MemorySegment.ofArray(new long[8]));
                cr.resume();
                cr.checkpoint();
                if (ctx.pid() == 0) {
                    // A directory where a .tmp file must go makes the write fail: pid 1 fails 1 and 2, pid 2 fails 2.
                    Files.createDirectories(Path.of(cp, "cp-0000000001/part-1.lpfcp.tmp"));
                    Files.createDirectories(Path.of(cp, "cp-0000000002/part-1.lpfcp.tmp"));
                    Files.createDirectories(Path.of(cp, "cp-0000000002/part-2.lpfcp.tmp"));
                }
                cr.checkpoint();
                for (int i = 0; i < 3; i++) {
                    cr.checkpointNow();
                    if (ctx.pid() != 2) Thread.sleep(20);
                }
                for (int i = 0; i < 10; i++) {
                    Thread.sleep(20);
                    cr.checkpoint();
                }
                cr.flush();
            }
        }));
        assertEveryCommittedCheckpointIsWhole(p);
        List<Long> committed = new CheckpointDirectory(dir).committed();
        assertFalse(committed.contains(1L) || committed.contains(2L), committed.toString());
        assertEquals(3L, committed.getFirst(), "flush commits the last checkpoint: " + committed);
    }

    @Test
    void aResumeThatFindsNothingUsableLeavesNoVerdictToBeTakenForAWriteReport() throws Exception {
        int p = 3;
        Lpf.root().exec(p, WithCheckpoints.spmd("stale", (ctx, cr) -> {
            cr.protect("data", MemorySegment.ofArray(new long[8]));
            cr.resume();
            for (int i = 0; i < 4; i++) {
                cr.checkpointNow();
                cr.flush(); // each one committed
            }
        }));
        assertEquals(List.of(4L, 3L, 2L, 1L), new CheckpointDirectory(dir).committed());
        Files.delete(dir.resolve("cp-0000000001/COMMITTED"));
        Files.delete(dir.resolve("cp-0000000002/COMMITTED"));
        Files.delete(dir.resolve("cp-0000000003/part-1.lpfcp"));
        Files.delete(dir.resolve("cp-0000000004/part-1.lpfcp"));
        Parameters.set("lpf.cr.files.resume", "true");
        MemorySegment out = Arena.ofAuto().allocate(8); // process 0's last committed checkpoint, in its output
        Lpf.root().exec(p, WithCheckpoints.spmd("stale", (ctx, cr) -> {
            cr.protect("data", MemorySegment.ofArray(new long[8]));
            if (cr.resume().isPresent()) throw new AssertionError("nothing usable to resume from");
            cr.checkpointNow();
            cr.checkpoint();
            if (ctx.pid() == 0) ctx.args().output().set(ValueLayout.JAVA_LONG, 0, cr.lastCommitted());
        }), Args.of(MemorySegment.NULL, out));
        long committedAfterOnePoint = out.get(ValueLayout.JAVA_LONG, 0);
        assertTrue(committedAfterOnePoint == 0 || committedAfterOnePoint == 5,
                "only this run's checkpoint 5 may be committed, not " + committedAfterOnePoint);
        List<Long> committed = new CheckpointDirectory(dir).committed();
        assertFalse(committed.contains(1L) || committed.contains(2L), committed.toString());
    }
}
