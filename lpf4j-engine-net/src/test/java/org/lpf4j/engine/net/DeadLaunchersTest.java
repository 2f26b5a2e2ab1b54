package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a launcher killed with {@code kill -9} left in /dev/shm is removed by the next launcher
 * (issue 42: shared-memory files do not outlive their job): a directory whose launcher's pid no
 * longer runs goes, with what it holds; one of a running launcher, and names that are not a
 * launcher's, stay.
 */
class DeadLaunchersTest {
    @Test
    void aDeadLaunchersDirectoryIsRemovedAndALiveOnesStays(@TempDir Path base) throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertTrue(gone.waitFor(10, TimeUnit.SECONDS), "a short process ended");
        Path dead = Files.createDirectory(base.resolve(NetLaunch.LAUNCH + gone.pid() + "-0123456789abcdef"));
        Files.writeString(dead.resolve("ring"), "left by a killed job");
        Path live = Files.createDirectory(base.resolve(NetLaunch.LAUNCH + ProcessHandle.current().pid() + "-fedcba9876543210"));
        Path noPid = Files.createDirectory(base.resolve(NetLaunch.LAUNCH + "0123456789abcdef"));
        Path other = Files.createDirectory(base.resolve("lpf4j-0123456789abcdef"));
        NetLaunch.removeDeadLaunchers(base);
        assertFalse(Files.exists(dead), "the directory of pid " + gone.pid() + " (ended) is removed");
        assertTrue(Files.isDirectory(live), "this running launcher's directory stays");
        assertTrue(Files.isDirectory(noPid), "a name without a pid stays");
        assertTrue(Files.isDirectory(other), "a job's directory (not a launcher's) stays");
    }
}
