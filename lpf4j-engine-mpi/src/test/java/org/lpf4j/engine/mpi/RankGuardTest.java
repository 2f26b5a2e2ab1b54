package org.lpf4j.engine.mpi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guards' election directories of jobs started by hand: those of a job whose launcher daemon
 * is gone (a rank died, so no JVM removed it) are removed by the next rank that starts; those of a
 * running daemon stay. (The guard itself is tested by FaultTest under both launchers.)
 */
class RankGuardTest {
    @Test
    void staleElectionDirectoriesGoAndLiveOnesStay(@TempDir Path tmp) throws Exception {
        ProcessHandle self = ProcessHandle.current();
        long start = self.info().startInstant().orElseThrow().toEpochMilli();
        Path live = Files.createDirectory(tmp.resolve("lpf4j-mpi-" + self.pid() + "-" + start));
        Path reused = Files.createDirectory(tmp.resolve("lpf4j-mpi-" + self.pid() + "-" + (start - 1000))); // a reused pid
        Path dead = Files.createDirectory(tmp.resolve("lpf4j-mpi-" + Integer.MAX_VALUE + "-1"));
        Files.writeString(dead.resolve("first"), "lpf4j mpi: rank 3 ... died");
        Path launching = Files.createDirectory(tmp.resolve("lpf4j-mpi.abc123")); // lpf run's own: not touched
        RankGuard.removeStale(tmp);
        assertTrue(Files.isDirectory(live));
        assertTrue(Files.isDirectory(launching));
        assertFalse(Files.exists(reused));
        assertFalse(Files.exists(dead));
    }
}
