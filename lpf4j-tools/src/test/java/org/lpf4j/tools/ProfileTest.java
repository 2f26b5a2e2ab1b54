package org.lpf4j.tools;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lpf run --profile DIR} on a program of known supersteps ({@link RingProfile}: every ring
 * superstep puts exactly n bytes to the next process) on every engine: DIR/supersteps.csv has one
 * row per process and superstep with the exact messages and bytes out and in, compute and wait
 * are never negative, the superstep in which one process sleeps is the slowest and that process
 * is marked (in the CSV, the picture and the summary), the pictures are a valid PNG and a valid
 * SVG, and no per-process file is left. On the mpi and hybrid engines the records of processes in
 * other JVMs are merged (real JVMs under mpirun, {@link LpfJvm}; skipped where MPI cannot run).
 * A DIR that cannot be made is a usage error before anything starts.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ProfileTest {
    private static final int N = 1000, ROUNDS = 4, SLOW_ROUND = 2, SLEEP_MS = 400;

    @TempDir
    Path tmp;

    @AfterEach
    void noThreadsLeft() { Cli.assertNoLpfThreads(); }

    private static List<String> args(Path dir, int p, String... engine) {
        List<String> a = new ArrayList<>(List.of("run"));
        a.addAll(List.of(engine));
        a.addAll(List.of("-p", Integer.toString(p), "--profile", dir.toString(), RingProfile.class.getName(),
                Integer.toString(N), Integer.toString(ROUNDS), Integer.toString(SLOW_ROUND), Integer.toString(p - 1),
                Integer.toString(SLEEP_MS)));
        return a;
    }

    @ParameterizedTest(name = "threads engine, p={0}")
    @ValueSource(ints = {1, 3, 4})
    void theThreadsEngineRecordsEverySuperstepOfEveryProcess(int p) throws Exception {
        Path dir = tmp.resolve("prof"); // missing: --profile makes it
        String out = Cli.run(args(dir, p, "--engine", "threads").toArray(String[]::new)).expect(0).out();
        assertProfile(dir, p, out, "threads");
    }

    @Test
    void manySuperstepsDrawTheSlowestAndSaySo() throws Exception {
        Path dir = tmp.resolve("many");
        int rounds = 150, steps = RingProfile.SETUP + rounds + 1;
        String out = Cli.run("run", "--engine", "threads", "-p", "2", "--profile", dir.toString(), RingProfile.class.getName(),
                "8", Integer.toString(rounds), "100", "1", "300").expect(0).out();
        assertEquals(2 * steps + 1, Files.readAllLines(dir.resolve("supersteps.csv")).size(), out);
        String svg = Files.readString(dir.resolve("timeline.svg"));
        assertTrue(svg.contains("showing the " + TimelinePicture.MAX_COLUMNS + " slowest of " + steps + " supersteps, in order"), svg);
        assertEquals(TimelinePicture.MAX_COLUMNS, svg.split("<title>superstep ", -1).length - 1, "one slowest mark per column");
        assertTrue(svg.contains("<title>superstep " + (RingProfile.SETUP + 100) + ": slowest pid 1,"), svg);
    }

    @Test
    void theMpiEngineMergesTheRecordsOfAllItsJvms() throws Exception {
        Launchable.need("mpi");
        Path dir = tmp.resolve("mpi");
        LpfJvm r = LpfJvm.run(150, args(dir, 3, "--engine", "mpi").toArray(String[]::new));
        assertTrue(r.done() && r.exitCode() == 0, r::both);
        assertProfile(dir, 3, r.out(), "mpi");
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    @Test
    void theNetEngineCountsWhatEachProcessSends() throws Exception {
        Path dir = tmp.resolve("net");
        LpfJvm r = LpfJvm.run(150, args(dir, 3, "--engine", "net").toArray(String[]::new));
        assertTrue(r.done() && r.exitCode() == 0, r::both);
        assertProfile(dir, 3, r.out(), "net");
        assertTrue(r.out().contains("sent per process and sync: "), r::both);
        assertTrue(r.out().contains("connections open: at most 4 (by path, at most: in-JVM 0, shared memory 4, TCP 0)"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    @Test
    void theHybridEngineMergesTheRecordsOfBothNodes() throws Exception {
        Launchable.need("hybrid");
        Path dir = tmp.resolve("hybrid");
        LpfJvm r = LpfJvm.run(150, args(dir, 4, "--engine", "hybrid", "--nodes", "2").toArray(String[]::new));
        assertTrue(r.done() && r.exitCode() == 0, r::both);
        assertProfile(dir, 4, r.out(), "hybrid");
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    @Test
    void aFailedSectionWritesNoProfileAndLeavesNoFiles() throws Exception {
        Path dir = tmp.resolve("failed");
        Cli.run(failing(dir, 3, "--engine", "threads")).expectError(ProgramFailure.EXIT_CODE, "fails as asked");
        assertEmpty(dir);
    }

    @Test
    void aFailedSectionOnTheMpiEngineEndsWithoutAProfile() throws Exception {
        Launchable.need("mpi");
        Path dir = tmp.resolve("failed-mpi");
        LpfJvm r = LpfJvm.run(150, failing(dir, 3, "--engine", "mpi"));
        assertTrue(r.done() && r.exitCode() != 0 && r.both().contains("fails as asked"), r::both);
        assertEmpty(dir);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    /** @return lpf run arguments of a {@link RingProfile} whose last pid throws in ring superstep 1 */
    private static String[] failing(Path dir, int p, String... engine) {
        List<String> a = args(dir, p, engine);
        a.set(a.size() - 3, "1");
        a.set(a.size() - 1, "-1");
        return a.toArray(String[]::new);
    }

    private static void assertEmpty(Path dir) throws IOException {
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "a failed section leaves nothing in DIR");
        }
    }

    @Test
    void aDirectoryThatCannotBeMadeIsAUsageErrorBeforeAnythingStarts() throws IOException {
        Path noParent = tmp.resolve("no/such/dir");
        Cli r = Cli.run(args(noParent, 2, "--engine", "threads").toArray(String[]::new))
                .expectError(UsageException.EXIT_CODE, "the parent directory " + tmp.resolve("no/such") + " does not exist");
        assertFalse(r.out().contains("lpf run:"), "nothing started: " + r.out());
        assertFalse(Files.exists(noParent));
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        Cli.run(args(file, 2, "--engine", "threads").toArray(String[]::new))
                .expectError(UsageException.EXIT_CODE, "exists and is not a directory");
        Cli.run("run", "--profile", tmp.toString(), "org.lpf4j.examples.HalfProcessors")
                .expectError(UsageException.EXIT_CODE, "--profile needs an org.lpf4j.Spmd class");
    }


    /**
     * What process q sent in a sync of RingProfile (its stream of one put of N bytes in a ring
     * superstep, and the round), as the CSV's last ten columns: nothing counted on the threads
     * engine, after the last sync, or at a hybrid node's processes other than its first (the node
     * is counted there); libmpi's collectives' messages are not seen (mpi, hybrid over it). The
     * net engine at p = 3: the streams go before a round of ⌈log2 3⌉ = 2 frames of two longs (the
     * word and the bits of who sends to whom), over two connections per peer, each on a shared-memory
     * file (the JVMs share this host).
     */
    private static List<String> sent(String engine, int p, int q, boolean ring, boolean synced) {
        List<String> none = java.util.Collections.nCopies(10, "");
        if (engine.equals("threads") || !synced || engine.equals("hybrid") && q % 2 != 0) return none;
        String data = ring ? "1" : "0", payload = ring ? Integer.toString(N) : "0", header = ring ? "40" : "0";
        String connections = Integer.toString(2 * (p - 1));
        // the net engine's JVMs share this host: every connection on a shared-memory file (in-JVM 0, shm all, TCP 0)
        if (engine.equals("net")) return List.of(data, payload, header, "2", "32", "1", connections, "0", connections, "0");
        return List.of(data, payload, header, "", "", "1", "", "", "", "");
    }

    /** Checks the CSV, the pictures and the summary of a run of {@link RingProfile} on p processes of {@code engine}. */
    private static void assertProfile(Path dir, int p, String out, String engine) throws Exception {
        int steps = RingProfile.SETUP + ROUNDS + 1, slowStep = RingProfile.SETUP + SLOW_ROUND, slowPid = p - 1;
        List<String> lines = Files.readAllLines(dir.resolve("supersteps.csv"));
        assertEquals("superstep,pid,sync,compute_ns,wait_ns,messages_out,bytes_out,messages_in,bytes_in,h_bytes,"
                + "step_h_bytes,step_predicted_ns,step_measured_ns,slowest,data_messages,payload_bytes,header_bytes,"
                + "meta_messages,meta_bytes,collectives,connections,connections_in_jvm,connections_shm,connections_tcp", lines.getFirst());
        assertEquals(p * steps, lines.size() - 1, () -> "one row per process and superstep:\n" + String.join("\n", lines));
        int row = 1;
        for (int s = 0; s < steps; s++) {
            for (int q = 0; q < p; q++) {
                String[] f = lines.get(row++).split(",", -1);
                String where = "superstep " + s + " pid " + q + ": " + String.join(",", f);
                assertEquals(s, Integer.parseInt(f[0]), where);
                assertEquals(q, Integer.parseInt(f[1]), where);
                assertEquals(s < steps - 1 ? 1 : 0, Integer.parseInt(f[2]), where);
                assertTrue(Long.parseLong(f[3]) >= 0 && Long.parseLong(f[4]) >= 0, where);
                // a ring superstep moves n bytes out of and into every process; a process's put to itself (p=1) is not counted
                boolean ring = s >= RingProfile.SETUP && s < RingProfile.SETUP + ROUNDS && p > 1;
                long msgs = ring ? 1 : 0, bytes = ring ? N : 0;
                assertEquals(List.of(msgs, bytes, msgs, bytes, bytes, bytes),
                        Stream.of(f[5], f[6], f[7], f[8], f[9], f[10]).map(Long::parseLong).toList(), where);
                long predicted = Long.parseLong(f[11]), measured = Long.parseLong(f[12]);
                assertTrue(predicted >= 0 && measured >= Long.parseLong(f[3]) + Long.parseLong(f[4]), where);
                assertEquals(sent(engine, p, q, ring, s < steps - 1), Arrays.asList(f).subList(14, 24), where);
                if (s == slowStep) {
                    assertEquals(q == slowPid ? 1 : 0, Integer.parseInt(f[13]), "the sleeping process is the slowest: " + where);
                    if (q == slowPid) assertTrue(Long.parseLong(f[3]) >= SLEEP_MS * 1_000_000L, where);
                }
            }
        }
        BufferedImage png = ImageIO.read(dir.resolve("timeline.png").toFile());
        assertNotNull(png, "timeline.png is a PNG");
        assertEquals(1200, png.getWidth());
        var svg = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(dir.resolve("timeline.svg").toFile());
        assertEquals("svg", svg.getDocumentElement().getTagName());
        String svgText = Files.readString(dir.resolve("timeline.svg"));
        assertTrue(svgText.contains("<title>superstep " + slowStep + ": slowest pid " + slowPid + ","), svgText);
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of("supersteps.csv", "timeline.png", "timeline.svg"),
                    left.map(f -> f.getFileName().toString()).sorted().toList(), "no per-process records left");
        }
        // the summary: printed once, the slow superstep first with its h and the sleeping pid
        assertEquals(1, out.lines().filter(l -> l.startsWith("lpf run --profile: ")).count(), out);
        assertTrue(out.contains("lpf run --profile: " + steps + " supersteps x " + p + " processes;"), out);
        List<String> table = out.lines().dropWhile(l -> !l.startsWith("slowest ")).toList();
        assertTrue(table.size() >= 3, out);
        String[] first = table.get(2).trim().split("\\s+");
        assertEquals(Integer.toString(slowStep), first[0], out);
        assertEquals(Integer.toString(p > 1 ? N : 0), first[1], out);
        int pidAt = Arrays.asList(first).indexOf("pid");
        assertEquals("pid " + slowPid, first[pidAt] + " " + first[pidAt + 1], out);
        // then, where the engine counts what it sends, the most data + meta messages a process sent in the sync
        String sentMsgs = switch (engine) {
            case "threads" -> null;
            case "net" -> "1+2";
            default -> "1+?";
        };
        assertEquals(sentMsgs == null ? pidAt + 2 : pidAt + 3, first.length, out);
        if (sentMsgs != null) assertEquals(sentMsgs, first[pidAt + 2], out);
        assertTrue(out.contains("imbalance (max/mean compute)"), out);
    }
}
