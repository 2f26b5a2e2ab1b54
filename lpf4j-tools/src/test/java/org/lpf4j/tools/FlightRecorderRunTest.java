package org.lpf4j.tools;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lpf run --engine mpi} hands its JVM options to every rank, so a Flight Recorder option
 * with {@code %p} in the file name gives one recording per rank, each with that rank's superstep
 * and section events.
 */
class FlightRecorderRunTest {

    @Test
    void everyRankOfAnMpiRunWritesItsOwnRecording(@TempDir Path dir) throws Exception {
        LpfJvm r = LpfJvm.run(150, List.of("-XX:StartFlightRecording=filename=" + dir.resolve("run-%p.jfr"),
                        "-Xlog:jfr+startup=error"), Map.of(),
                "run", "--engine", "mpi", "-p", "2", "org.lpf4j.examples.SampleSort", "20000");
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
        // The README's tip: =error (not =warning, on JDK 25) keeps the JVMs from printing "Started recording".
        assertFalse(r.both().contains("Started recording"), r::both);
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.toList();
        }
        TreeSet<Integer> pids = new TreeSet<>();
        int withEvents = 0;
        for (Path f : files) {
            List<RecordedEvent> events = RecordingFile.readAllEvents(f).stream()
                    .filter(e -> e.getEventType().getName().startsWith("org.lpf4j.")).toList();
            if (events.isEmpty()) continue; // the lpf run that started mpirun
            withEvents++;
            List<RecordedEvent> steps = events.stream().filter(e -> e.getEventType().getName().equals("org.lpf4j.Superstep")).toList();
            assertTrue(steps.size() >= 2, () -> f + ": " + events);
            steps.forEach(e -> assertEquals("mpi", e.getString("engine")));
            pids.add(steps.getFirst().getInt("pid"));
            assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("org.lpf4j.Section")
                    && e.getString("call").equals("exec") && !e.getBoolean("failed")), () -> f + ": " + events);
        }
        assertEquals(2, withEvents, () -> "recordings: " + files + "\n" + r.both());
        assertEquals(new TreeSet<>(List.of(0, 1)), pids);
    }

    @Test
    void aRunWithoutRecordingLoadsNoEventClass(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("classes.txt");
        LpfJvm r = LpfJvm.run(120, List.of("-Xlog:class+load=info:file=" + log), Map.of(),
                "run", "-p", "2", "org.lpf4j.examples.SampleSort", "20000");
        assertEquals(0, r.exitCode(), r::both);
        List<String> loaded = Files.readAllLines(log).stream()
                .filter(l -> l.contains(" jdk.jfr.Event ") || l.contains(" org.lpf4j.spi.kit.SuperstepEvent ")
                        || l.contains(" org.lpf4j.spi.kit.SectionEvent ")).toList();
        assertTrue(loaded.isEmpty(), () -> "JFR event classes loaded without a recording: " + loaded);
    }
}
