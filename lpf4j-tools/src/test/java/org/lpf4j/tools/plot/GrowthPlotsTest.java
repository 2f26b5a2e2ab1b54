package org.lpf4j.tools.plot;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link GrowthPlots} draws its four charts from the lines the scale scripts print, and skips other lines. */
class GrowthPlotsTest {
    @Test
    void drawsTheCountsAndTheStartUpFromMeasuredLines(@TempDir Path dir) throws Exception {
        List<String> lines = List.of(
                "counts workload=empty p=2 messages=1 bytes=8 connections=1",
                "counts workload=empty p=4 messages=2 bytes=16 connections=3",
                "counts workload=ring p=4 messages=3 bytes=64 connections=3",
                "counts workload=dense p=4 messages=5 bytes=120 connections=4",
                "lpf run: noise",
                "series=before startup p=4 from_last_main_ms=900 from_first_main_ms=1000",
                "series=before startup p=4 from_last_main_ms=700 from_first_main_ms=800",
                "series=after startup p=4 from_last_main_ms=500 from_first_main_ms=600");
        List<Path> files = GrowthPlots.write(lines, dir);
        assertEquals(List.of("growth-messages.png", "growth-bytes.png", "growth-connections.png", "startup.png"),
                files.stream().map(p -> p.getFileName().toString()).toList());
        for (Path f : files) assertTrue(Files.size(f) > 1000, f + " is a picture");
        assertEquals(3, GrowthPlots.log2(5));
    }
}
