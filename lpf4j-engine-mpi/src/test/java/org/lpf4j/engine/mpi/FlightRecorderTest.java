package org.lpf4j.engine.mpi;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lpf4j.testkit.FlightRecorderMain;
import org.lpf4j.testkit.MpiJob;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every rank of an MPI job started with {@code -XX:StartFlightRecording} writes its own recording
 * ({@code %p} in the file name) with the engine's superstep and section events.
 */
class FlightRecorderTest {

    @Test
    void eachRankRecordsItsSuperstepsAndSection(@TempDir Path dir) throws Exception {
        MpiJob.Result r = MpiJob.openMpi()
                .jvm("-XX:StartFlightRecording=filename=" + dir.resolve("rank-%p.jfr"))
                .run(2, Duration.ofSeconds(120), FlightRecorderMain.class);
        EngineTest.ok(r, "JFR RUN OK");
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(f -> f.getFileName().toString().endsWith(".jfr")).toList();
        }
        assertEquals(2, files.size(), () -> "recordings: " + files + "\n" + r.both());
        List<Integer> pids = new ArrayList<>();
        for (Path f : files) {
            List<RecordedEvent> events = RecordingFile.readAllEvents(f);
            List<RecordedEvent> steps = events.stream().filter(e -> e.getEventType().getName().equals("org.lpf4j.Superstep")
                    && e.getString("engine").equals("mpi") && e.getInt("nprocs") == 2).toList();
            int pid = steps.getFirst().getInt("pid");
            pids.add(pid);
            for (long s = 0; s < 3; s++) {
                long step = s;
                List<RecordedEvent> at = steps.stream().filter(e -> e.getLong("superstep") == step).toList();
                assertEquals(1, at.size(), () -> f + ": superstep " + step + " events: " + steps);
                RecordedEvent e = at.getFirst();
                assertEquals(pid, e.getInt("pid"));
                assertEquals(s == 2 ? 3 : 0, e.getLong("messagesOut"), () -> f + ": " + e);
                assertEquals(s == 2 ? 24 : 0, e.getLong("bytesOut"), () -> f + ": " + e);
                assertEquals(-1, e.getLong("messagesIn"), () -> f + ": " + e);
                // what left the JVM: at superstep 2 one stream (its length, three 32-byte headers, 24 bytes of puts);
                // libmpi's collectives hide their messages (-1), the round is one collective; no connections of its own
                assertEquals(s == 2 ? 1 : 0, e.getLong("dataMessages"), () -> f + ": " + e);
                assertEquals(s == 2 ? 24 : 0, e.getLong("payloadBytes"), () -> f + ": " + e);
                assertEquals(s == 2 ? 8 + 3 * 32 : 0, e.getLong("headerBytes"), () -> f + ": " + e);
                assertEquals(-1, e.getLong("metaMessages"), () -> f + ": " + e);
                assertEquals(-1, e.getLong("metaBytes"), () -> f + ": " + e);
                assertEquals(1, e.getLong("collectives"), () -> f + ": " + e);
                assertEquals(-1, e.getLong("connections"), () -> f + ": " + e);
            }
            List<RecordedEvent> sections = events.stream().filter(e -> e.getEventType().getName().equals("org.lpf4j.Section")
                    && e.getString("call").equals("exec") && e.getInt("nprocs") == 2).toList();
            assertEquals(1, sections.size(), () -> f + ": section events: " + sections);
            assertEquals(3, sections.getFirst().getLong("supersteps"));
            assertEquals(pid, sections.getFirst().getInt("pid"));
        }
        assertTrue(pids.contains(0) && pids.contains(1), () -> "pids recorded: " + pids);
    }
}
