package org.lpf4j.engine.hybrid;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lpf4j.testkit.FlightRecorderMain;
import org.lpf4j.testkit.MpiJob;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each node JVM of a hybrid job (2 nodes × 2 threads) started with {@code -XX:StartFlightRecording}
 * records the superstep and section events of its own processes.
 */
class FlightRecorderTest {

    @Test
    void eachNodeRecordsTheSuperstepsOfItsProcesses(@TempDir Path dir) throws Exception {
        MpiJob.Result r = MpiJob.openMpi().jvm("-Dlpf.engine.hybrid.nodes=rank", "-Dlpf.engine.hybrid.threads=2",
                        "-Dlpf.engine.hybrid.probeMillis=50", "-XX:StartFlightRecording=filename=" + dir.resolve("node-%p.jfr"))
                // the MPI engine's test main, by name: its package is split from the engine's module
                .run(2, Duration.ofMinutes(2), FlightRecorderMain.class, "hybrid");
        assertFalse(r.timedOut(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.out().contains("JFR RUN OK"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "left behind: " + r.ghosts());
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.toList();
        }
        assertEquals(2, files.size(), () -> "recordings: " + files);
        TreeSet<Integer> pids = new TreeSet<>();
        for (Path f : files) {
            List<RecordedEvent> events = RecordingFile.readAllEvents(f);
            List<RecordedEvent> steps = events.stream().filter(e -> e.getEventType().getName().equals("org.lpf4j.Superstep")
                    && e.getString("engine").equals("hybrid") && e.getInt("nprocs") == 4 && e.getLong("superstep") == 2).toList();
            assertEquals(2, steps.size(), () -> f + ": superstep 2 events: " + steps);
            for (RecordedEvent e : steps) {
                pids.add(e.getInt("pid"));
                assertEquals(3, e.getLong("messagesOut"), e::toString);
                assertEquals(24, e.getLong("bytesOut"), e::toString);
                assertEquals(-1, e.getLong("messagesIn"), e::toString);
                // the node's JVM's counts, at its local process 0 only: one stream to the other node (the three puts
                // of the node's process that sends across), the round; libmpi's collectives hide their messages
                boolean leader = e.getInt("pid") % 2 == 0;
                assertEquals(leader ? 1 : -1, e.getLong("dataMessages"), e::toString);
                assertEquals(leader ? 24 : -1, e.getLong("payloadBytes"), e::toString);
                assertEquals(leader ? 1 : -1, e.getLong("collectives"), e::toString);
                assertEquals(-1, e.getLong("metaMessages"), e::toString);
            }
            List<RecordedEvent> sections = events.stream().filter(e -> e.getEventType().getName().equals("org.lpf4j.Section")
                    && e.getString("call").equals("exec") && e.getInt("nprocs") == 4).toList();
            assertEquals(2, sections.size(), () -> f + ": section events: " + sections);
            sections.forEach(e -> assertEquals(3, e.getLong("supersteps"), e::toString));
        }
        assertEquals(new TreeSet<>(List.of(0, 1, 2, 3)), pids);
    }
}
