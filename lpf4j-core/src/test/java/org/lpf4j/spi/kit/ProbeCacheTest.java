package org.lpf4j.spi.kit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lpf4j.Machine;
import org.lpf4j.spi.CoreParameters;
import org.lpf4j.spi.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The disk cache of measured g and l, in a temporary directory set through its parameter (never
 * the user's cache). Engine names are unique per test, so the JVM's in-memory cache never answers
 * for the disk.
 */
class ProbeCacheTest {
    @TempDir Path dir;
    private final String engine = "cachetest-" + UUID.randomUUID();

    @BeforeEach
    void useTemporaryDirectory() {
        Parameters.set(CoreParameters.PROBE_CACHE_DIR.key(), dir.toString());
        Parameters.set(CoreParameters.PROBE_CACHE.key(), "on");
    }

    @AfterEach
    void restore() {
        Parameters.clear(CoreParameters.PROBE_CACHE_DIR.key());
        Parameters.clear(CoreParameters.PROBE_CACHE.key());
    }

    private static ProbeHarness.Fit fit() {
        return new ProbeHarness.Fit(ProbeHarness.SIZES.clone(), new double[] {1.25e-9, 3e-10, 1.0 / 3e10, 2e-11, 1.5e-11},
                new double[] {2e-6, 2.1e-6, 2.5e-6, 1e-5, 1.2e-4}, List.of("8 B: unreliable, with = and : and ü"));
    }

    @Test
    void writtenFiguresReadBackEqual() {
        ProbeHarness.Fit f = fit();
        Path file = ProbeCache.write(engine, 3, f).orElseThrow();
        assertTrue(file.startsWith(dir), file.toString());
        ProbeCache.Entry e = ProbeCache.read(engine, 3).orElseThrow();
        assertArrayEquals(f.sizes(), e.fit().sizes());
        assertArrayEquals(f.g(), e.fit().g());
        assertArrayEquals(f.l(), e.fit().l());
        assertEquals(f.warnings(), e.fit().warnings());
        assertEquals(3, e.p());
        assertTrue(ProbeCache.entries().stream().anyMatch(x -> x.engine().equals(engine) && x.p() == 3));
        assertFalse(ProbeCache.read(engine, 4).isPresent(), "another p has no entry");
        try (var files = Files.list(file.getParent())) {
            assertEquals(List.of(file), files.toList(), "no temporary file left");
        } catch (java.io.IOException e2) {
            throw new java.io.UncheckedIOException(e2);
        }
    }

    /** What pid 0 sends to the other JVMs of an MPI section: the same figures, bit for bit. */
    @Test
    void figuresCrossJvmsEqual() {
        ProbeHarness.Fit f = fit(), back = ProbeCache.decode(ProbeCache.encode(f));
        assertArrayEquals(f.sizes(), back.sizes());
        assertArrayEquals(f.g(), back.g());
        assertArrayEquals(f.l(), back.l());
        assertEquals(f.warnings(), back.warnings());
        assertThrows(IllegalArgumentException.class, () -> ProbeCache.decode("g=1".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    @Test
    void probeReadsTheDiskInsteadOfMeasuring() {
        ProbeCache.write(engine, 2, fit());
        AtomicInteger sections = new AtomicInteger();
        Machine m = ProbeHarness.machine(engine, 2, 2, 1_000_000L, (p, spmd) -> sections.incrementAndGet());
        assertEquals(0, sections.get(), "measured although the cache held the figures");
        assertEquals(fit().g()[1], m.g(128));
        assertEquals(fit().warnings(), m.warnings());
    }

    @Test
    void corruptOrForeignFilesAreIgnoredAndMeasuredOver() throws Exception {
        ProbeCache.write(engine, 2, fit());
        Path file = ProbeCache.file(engine, 2);
        for (String text : List.of("garbage\u0000\u00ff=\\", "format=1\nmachine=another\n",
                Files.readString(file).replace("g=", "g=x"), Files.readString(file).replaceAll("sizes=.*", "sizes=8"))) {
            String name = engine + "-" + UUID.randomUUID();
            Files.writeString(ProbeCache.file(name, 2), text);
            assertFalse(ProbeCache.read(name, 2).isPresent(), text);
            // probe() measures (here: a section that fails, which shows it was asked to run)
            AtomicInteger sections = new AtomicInteger();
            assertThrows(IllegalStateException.class, () -> ProbeHarness.machine(name, 2, 2, 1_000_000L, (p, spmd) -> {
                sections.incrementAndGet();
                throw new IllegalStateException("measuring");
            }));
            assertEquals(1, sections.get());
        }
        assertTrue(ProbeCache.entries().stream().allMatch(e -> e.engine().equals(engine)), "corrupt files not listed");
    }

    @Test
    void offTouchesNoFile() {
        Parameters.set(CoreParameters.PROBE_CACHE.key(), "off");
        ProbeCache.write(engine, 2, fit());
        AtomicInteger sections = new AtomicInteger();
        assertThrows(IllegalStateException.class, () -> ProbeHarness.machine(engine, 2, 2, 1_000_000L, (p, spmd) -> {
            sections.incrementAndGet();
            throw new IllegalStateException("measuring");
        }));
        assertEquals(1, sections.get(), "off must not read the file");
    }

    @Test
    void anUnwritableDirectoryIsNoError() throws Exception {
        Path blocker = dir.resolve("file");
        Files.writeString(blocker, "not a directory");
        Parameters.set(CoreParameters.PROBE_CACHE_DIR.key(), blocker.toString());
        assertFalse(ProbeCache.write(engine, 2, fit()).isPresent());
        assertTrue(ProbeCache.entries().isEmpty());
    }
}
