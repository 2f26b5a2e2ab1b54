package org.lpf4j.cr;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lpf4j.Args;
import org.lpf4j.Lpf;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Parameters;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The org.lpf4j.Checkpoint JFR events of a run that takes, writes, commits and restores
 * checkpoints. It reads a recording of this JVM, which holds the events of every process only
 * when all run here: tagged {@code callers-jvm} (ConformanceMain's {@code CALLERS_JVM}), which the
 * suite's runs across JVMs leave out.
 */
@Tag("callers-jvm")
class CheckpointEventTest {
    @TempDir Path dir;

    @AfterEach
    void clear() {
        for (String k : List.of("lpf.cr", "lpf.cr.files.dir")) Parameters.clear(k);
    }

    @Test
    void aRecordingHoldsTakenWrittenCommittedAndRestoredSteps() throws Exception {
        Components.installed();
        Parameters.set("lpf.cr", "files");
        Parameters.set("lpf.cr.files.dir", dir.resolve("cp").toString());
        Path file = dir.resolve("run.jfr");
        try (Recording r = new Recording()) {
            r.enable("org.lpf4j.Checkpoint");
            r.start();
            RingJob job = new RingJob(dir, 2, 8, 30, 5, 1, 17);
            job.pauseMillis = 2;
            Restarts.exec(Lpf.root(), 2, job, Args.NONE, 1, false, s -> {});
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("org.lpf4j.Checkpoint")).toList();
        Set<String> steps = events.stream().map(e -> e.getString("step")).collect(Collectors.toSet());
        assertEquals(Set.of("taken", "written", "committed", "restored"), steps, events.toString());
        for (RecordedEvent e : events) {
            assertTrue(e.getLong("seq") > 0 && e.getInt("pid") >= 0 && e.getInt("pid") < 2, e.toString());
            assertEquals("ring 8 30", e.getString("program"), e.toString());
            if (!e.getString("step").equals("committed")) assertTrue(e.getLong("bytes") > 8 * 8, e.toString());
        }
        assertEquals(2, events.stream().filter(e -> e.getString("step").equals("restored")).count(), "one per process");
    }
}
