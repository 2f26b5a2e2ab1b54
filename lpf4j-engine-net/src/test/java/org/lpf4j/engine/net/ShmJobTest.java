package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.testkit.NetJob;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A net job of 3 JVMs on this host ({@code NetLaunch}, as {@code lpf run --engine net -p 3}
 * starts it) talks through shared memory: every JVM maps the files of its connections to the two
 * others, and once they are made nothing is left in {@code /dev/shm}. Then the same job again, with one JVM killed by
 * SIGKILL in the middle of its syncs: the others' syncs throw a {@code FatalException} naming it
 * within 2 s, and once the launcher has ended nothing of the job is left in {@code /dev/shm}.
 * Bounded in time; the job's process tree is killed in {@code finally}.
 */
@Timeout(300)
class ShmJobTest {
    private static Set<String> shmEntries() throws Exception {
        try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("lpf4j")).collect(Collectors.toSet());
        }
    }

    /** Runs the job; {@code onLine} sees each line of its output as it comes. @return the output */
    /** How the test ends pid 2's JVM in the middle of its syncs: not at all, SIGKILL, or SIGSTOP (frozen). */
    private enum End { NONE, KILL, STOP }

    /** The sync deadline of the frozen JVM's run. */
    private static final long STOP_DEADLINE_MILLIS = 3_000;

    private static List<String> job(End end) throws Exception {
        boolean kill = end != End.NONE;
        String marker = "lpf.test.marker=" + UUID.randomUUID();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-D" + marker, "-cp", cp, NetLaunch.class.getName(), "3", java, "-Xss1m",
                "-D" + marker, "-Dlpf.engine=net", "-Dlpf.engine.net.syncTimeout=" + (end == End.STOP ? STOP_DEADLINE_MILLIS : 60_000), "-cp", cp, ShmKillProgram.class.getName()));
        if (kill) command.add("kill");
        Process launch = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        AtomicLong killedAt = new AtomicLong();
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(launch.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    lines.add(l);
                    if (l.startsWith("JVM ")) {
                        long pid = Long.parseLong(l.substring(4).strip());
                        Thread.sleep(300); // the syncs go on meanwhile
                        killedAt.set(System.currentTimeMillis());
                        if (end == End.STOP) new ProcessBuilder("kill", "-STOP", Long.toString(pid)).inheritIO().start().waitFor();
                        else ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                    }
                }
            } catch (Exception e) {
                lines.add("(reader: " + e + ")");
            }
        });
        try {
            assertTrue(launch.waitFor(240, TimeUnit.SECONDS), "the job did not end: " + lines);
            reader.get(30, TimeUnit.SECONDS);
            String all = String.join("\n", lines);
            for (int s = 0; s < 3; s++) {
                // Its main connection to each of the two others, and a large connection if a pair dialled at once.
                int pid = s;
                assertTrue(lines.stream().anyMatch(l -> l.matches("MAPPED pid " + pid + " [234]")), "pid " + s + " maps its connections' rings:\n" + all);
            }
            assertTrue(lines.contains("FILES 0"), "nothing left in the directory once the job is set up:\n" + all);
            if (kill) {
                assertNotEquals(0, launch.exitValue(), all);
                String fatal = lines.stream().filter(l -> l.startsWith("FATAL ")).findFirst().orElseThrow(() -> new AssertionError(all));
                long after = Long.parseLong(fatal.split(" ")[1]) - killedAt.get();
                assertTrue(fatal.contains("pid 2"), fatal);
                long bound = end == End.STOP ? STOP_DEADLINE_MILLIS + 2_000 : 2_000;
                assertTrue(after < bound, "named " + after + " ms after the " + end + ": " + fatal);
                if (end == End.STOP) assertTrue(fatal.contains("within " + STOP_DEADLINE_MILLIS + " ms"), "the deadline names it: " + fatal);
            } else {
                assertEquals(0, launch.exitValue(), all);
                for (int s = 0; s < 3; s++) assertTrue(lines.contains("DONE pid " + s), all);
            }
            return lines;
        } finally {
            launch.descendants().forEach(ProcessHandle::destroyForcibly);
            launch.destroyForcibly();
            launch.onExit().get(10, TimeUnit.SECONDS);
            List<String> left = ProcessHandle.allProcesses()
                    .filter(h -> h.info().commandLine().map(c -> c.contains(marker)).orElse(false))
                    .map(h -> h.pid() + " " + h.info().command().orElse("?")).toList();
            assertTrue(left.isEmpty(), "processes of the job left behind: " + left);
        }
    }

    @Test
    void aJobOnOneHostSharesMemoryLeavesNothingBehindAndNamesAKilledJvmWithinTwoSeconds() throws Exception {
        leavesNothingInDevShm(End.NONE, "a job that ended well");
        leavesNothingInDevShm(End.KILL, "a job with a JVM killed");
    }

    /** Runs the job, ending pid 2's JVM as {@code end} says; then checks that /dev/shm holds nothing of it. */
    private static void leavesNothingInDevShm(End end, String what) throws Exception {
        Set<String> before = shmEntries();
        job(end);
        Set<String> after = shmEntries();
        after.removeAll(before);
        assertEquals(Set.of(), after, "left in /dev/shm after " + what);
    }

    /**
     * A JVM frozen (SIGSTOP) while it shares rings with the others: their syncs' deadline names
     * it, the job ends (the launcher ends the frozen JVM), and nothing is left in {@code /dev/shm}.
     */
    @Test
    void aJvmFrozenWhileItSharesRingsIsNamedByTheSyncDeadline() throws Exception {
        leavesNothingInDevShm(End.STOP, "a job with a JVM frozen");
    }

    /**
     * Rings between ranks of one JVM are native memory, counted against {@code
     * -XX:MaxDirectMemorySize}: when the limit refuses a pair's rings, that pair talks over TCP,
     * the process says so once, and the suite passes (the rings were allocated on the handshake's
     * thread, whose OutOfMemoryError left the connection unmade and the section with transfers
     * pending). A pair's rings, about 64 MiB, are more than the JVM's 32 MiB.
     */
    @Test
    void ranksOfOneJvmWhoseRingsDoNotFitItsDirectMemoryTalkOverTcp() throws Exception {
        String out = NetJob.run(8, 4, 240, List.of("-Dlpf.engine=net", "-Dlpf.test.engine=net",
                "-Dlpf.engine.net.shmBytes=" + (64 << 20), "-XX:MaxDirectMemorySize=32m"),
                NetJob.CONFORMANCE_MAIN, "org.lpf4j.conformance.DrmaTest");
        NetJob.assertSuitePassed(out, 5);
        assertTrue(out.contains("of this JVM, and to any other whose rings do not fit: rings of "), out);
        assertTrue(!out.contains("OutOfMemoryError"), out);
    }

    /**
     * The rings of one JVM's ranks leave room in its direct memory for the connections' buffers
     * (128 KiB each, ring or not): with 16 MiB, the rings of 5 of a JVM's 6 pairs (about 3 MiB
     * each) would fit, and the connections would then find no memory for their buffers.
     */
    @Test
    void ringsOfOneJvmLeaveItsDirectMemoryToTheConnectionsBuffers() throws Exception {
        String out = NetJob.run(8, 4, 120, List.of("-Dlpf.engine=net", "-Dlpf.test.engine=net", "-XX:MaxDirectMemorySize=16m"),
                NetJob.CONFORMANCE_MAIN, "org.lpf4j.conformance.DrmaTest");
        NetJob.assertSuitePassed(out, 5);
        assertTrue(!out.contains("OutOfMemoryError") && !out.contains("Cannot reserve"), out);
    }
}
