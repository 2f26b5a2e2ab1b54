package org.lpf4j.tools.plot;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link GrowthPlots} draws its five charts from the lines the scale scripts print, and skips other lines. */
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

    @Test
    void drawsTheTimePerSuperstepOfEachEngineFromTheEmulatedHostsLines(@TempDir Path dir) throws Exception {
        List<String> lines = List.of(
                "emulated hosts=8 one_way_us=50",
                "net empty_sync_us 8 2163", "mpi-tcp empty_sync_us 8 2836",
                "net ring8_sync_us 8 1206", "mpi-tcp ring8_sync_us 8 7194",
                "net dense8_sync_us 16 8716", "net put1MiB_GBps 16 0.020",
                "net empty_sync_us x 1");
        List<Path> files = GrowthPlots.write(lines, dir);
        assertEquals(List.of("growth-time.png"), files.stream().map(p -> p.getFileName().toString()).toList(),
                "only the time chart: no counts or start-up lines");
        assertTrue(Files.size(files.get(0)) > 1000, "a picture");
        assertEquals(List.of(), GrowthPlots.write(List.of("net empty_sync_us x 1", "net put1MiB_GBps 16 0.020"), dir.resolve("none")),
                "malformed lines and bandwidths draw no time chart");
    }
}
