package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.MpiJob;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Failures on 2 nodes (JVMs) × 2 threads: pid 3 (node 1, thread 1) throws, returns early, or
 * SIGKILLs its JVM while the others sync. Each ends the whole job within 5 s with an error naming
 * the pid and node (for the kill: Open MPI names the node's rank), and leaves no process behind.
 * With {@code lpf.engine.mpi.syncTimeout}, a node stopped by {@code kill -STOP} ends the job soon
 * after the deadline, named as stopped by a signal, under both launchers.
 */
class FaultTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final Pattern FAILING = Pattern.compile("FAILING pid 3 at (\\d+)");
    private static final Pattern FATAL = Pattern.compile("FATAL at (\\d+): (.*)");

    private static MpiJob.Result run(String mode) { return run(MpiJob.openMpi(), mode); }

    private static MpiJob.Result run(MpiJob job, String mode) {
        return job.jvm("-Dlpf.engine.hybrid.nodes=rank", "-Dlpf.engine.hybrid.threads=2",
                "-Dlpf.engine.hybrid.probeMillis=20").run(2, TIMEOUT, FaultMain.class, mode);
    }

    /** @return the FATAL message, after checking it came within 5 s of the failure */
    private static String fatalWithin5s(MpiJob.Result r) {
        assertFalse(r.timedOut(), r::both);
        Matcher failing = FAILING.matcher(r.out()), fatal = FATAL.matcher(r.out());
        assertTrue(failing.find(), r::both);
        assertTrue(fatal.find(), r::both);
        long took = Long.parseLong(fatal.group(1)) - Long.parseLong(failing.group(1));
        assertTrue(took < 5_000, () -> "exec failed " + took + " ms after the failure\n" + r.both());
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
        return fatal.group(2);
    }

    @Test
    void aThrowingThreadFailsTheJobNamingPidAndNode() {
        MpiJob.Result r = run("throw");
        String message = fatalWithin5s(r);
        assertTrue(message.contains("pid 3 (node 1, thread 1) threw java.lang.IllegalStateException: planned failure"), r::both);
        assertTrue(r.out().contains("CAUSE java.lang.IllegalStateException: planned failure"), r::both);
    }

    @Test
    void aThreadThatReturnsEarlyFailsTheJobNamingPidAndNode() {
        MpiJob.Result r = run("early");
        String message = fatalWithin5s(r);
        assertTrue(message.contains("pid 3 (node 1, thread 1) returned from its SPMD function"), r::both);
        assertTrue(r.out().contains("CAUSE null"), () -> "nobody threw: " + r.both());
    }

    @Test
    void aKilledNodeEndsTheJobWithin5s() {
        long[] end = new long[1];
        MpiJob.Result r = run("kill");
        end[0] = System.currentTimeMillis();
        assertFalse(r.timedOut(), r::both);
        Matcher failing = FAILING.matcher(r.out());
        assertTrue(failing.find(), r::both);
        long took = end[0] - Long.parseLong(failing.group(1));
        assertTrue(took < 5_000, () -> "the job ended " + took + " ms after the kill\n" + r.both());
        assertNotEquals(0, r.exitCode(), r::both);
        assertTrue((r.out() + r.err()).contains("rank 1"), () -> "the launcher names the dead node's rank: " + r.both());
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }

    @Test
    void aStoppedNodeEndsTheOpenMpiJobNamingIt() { stoppedNode(MpiJob.openMpi()); }

    @Test
    void aStoppedNodeEndsTheMpichJobNamingIt() { stoppedNode(MpiJob.mpich()); }

    /** Node 1's JVM stops itself (pid 3, its thread 1, calls {@code kill -STOP}); the deadline is 2 s. */
    private static void stoppedNode(MpiJob job) {
        long[] stopped = {-1};
        try {
            MpiJob.Result r = run(job.jvm("-Dlpf.engine.mpi.syncTimeout=2000"), "stop");
            long end = System.currentTimeMillis();
            assertFalse(r.timedOut(), r::both);
            Matcher failing = FAILING.matcher(r.out()), os = Pattern.compile("OSPID (\\d+)").matcher(r.out());
            assertTrue(failing.find() && os.find(), r::both);
            stopped[0] = Long.parseLong(os.group(1));
            long took = end - Long.parseLong(failing.group(1));
            assertTrue(took < 2_000 + 8_000, () -> "the job ended " + took + " ms after the stop\n" + r.both());
            Matcher fatal = FATAL.matcher(r.out());
            assertTrue(fatal.find(), r::both);
            String message = fatal.group(2);
            assertTrue(message.contains("exec(p=4) on the hybrid engine"), r::both);
            assertTrue(message.contains("waited in sync "), r::both);
            assertTrue(message.contains("for the other nodes: node 1 of 2 did not reach sync "), r::both);
            assertTrue(message.contains("(lpf.engine.mpi.syncTimeout=2000); node 1 (process id " + stopped[0] + " on host "), r::both);
            assertTrue(message.contains("is stopped by a signal (state T), e.g. kill -STOP"), r::both);
            assertFalse((r.out() + r.err()).contains("returned"), r::both);
            assertFalse((r.out() + r.err()).contains("died while the job was running"), r::both);
            assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
        } finally {
            if (stopped[0] > 0) ProcessHandle.of(stopped[0]).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
