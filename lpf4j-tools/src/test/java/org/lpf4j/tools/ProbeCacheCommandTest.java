package org.lpf4j.tools;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The probe cache from the command line: {@code lpf probe} measures and writes it, {@code lpf
 * info} reports it, and a program's first {@code Collectives.init} in a fresh JVM reads it
 * instead of measuring. Every run points the cache at a {@link TempDir} (surefire turns the cache
 * off for everything else).
 */
@Timeout(180)
class ProbeCacheCommandTest {
    @TempDir Path dir;

    @AfterEach
    void noThreadsLeft() { Cli.assertNoLpfThreads(); }

    @Test
    void probeWritesTheCacheAndInfoReportsIt() throws Exception {
        String out = Cli.run("probe", "-p", "3", "--param", "lpf.engine.threads.probeMillis=60",
                "--param", "lpf.probe.cache=on", "--param", "lpf.probe.cacheDir=" + dir).expect(0).out();
        Matcher m = Pattern.compile("cache: wrote (\\S+)").matcher(out);
        assertTrue(m.find(), out);
        Path file = Path.of(m.group(1));
        assertTrue(file.startsWith(dir) && Files.isRegularFile(file), out);
        assertTrue(file.getFileName().toString().equals("threads-p3.properties"), out);

        String info = Cli.run("info", "--param", "lpf.probe.cache=on", "--param", "lpf.probe.cacheDir=" + dir)
                .expect(0).out();
        assertTrue(info.contains("probe cache (lpf.probe.cache=on): " + file.getParent()), info);
        assertTrue(Pattern.compile("threads p=3: measured \\d{4}-\\d\\d-\\d\\dT[^,]+, .*" + Pattern.quote(file.toString()))
                .matcher(info).find(), info);
        assertTrue(info.contains("lpf.probe.cacheDir = " + dir + "  [programmatic"), info);

        // Off: lpf probe measures and says it wrote nothing.
        String off = Cli.run("probe", "-p", "3", "--param", "lpf.engine.threads.probeMillis=60",
                "--param", "lpf.probe.cache=off", "--param", "lpf.probe.cacheDir=" + dir).expect(0).out();
        assertTrue(off.contains("cache: off (lpf.probe.cache=off): nothing written"), off);
    }

    @Test
    void anEmptyCacheSaysSo() {
        String info = Cli.run("info", "--param", "lpf.probe.cache=on", "--param", "lpf.probe.cacheDir=" + dir)
                .expect(0).out();
        assertTrue(info.contains("no cached measurement"), info);
    }

    /**
     * The MPI engine: lpf probe writes the file of its placement (one host here), and a program's
     * probe in a new job gets exactly those figures on every rank (pid 0 read the file and sent
     * them); a corrupt file is measured over and written again, with all ranks agreeing.
     */
    @Test
    void theMpiEngineReadsTheCacheOnPid0AndEveryRankGetsItsFigures() throws Exception {
        Launchable.need("mpi");
        Map<String, String> env = Map.of("LPF_PROBE_CACHE", "on", "LPF_PROBE_CACHEDIR", dir.toString());
        LpfJvm probe = LpfJvm.run(90, env, "probe", "--engine", "mpi", "-p", "2", "--param", "lpf.engine.mpi.probeMillis=50");
        assertEquals(0, probe.exitCode(), probe.both());
        Matcher w = Pattern.compile("cache: wrote (\\S+)").matcher(probe.out());
        assertTrue(w.find(), probe.both());
        Path file = Path.of(w.group(1));
        assertTrue(file.startsWith(dir) && file.getFileName().toString().equals("mpi-p2.properties"), probe.both());
        String g8 = firstFigure(file);

        LpfJvm run = LpfJvm.run(90, env, "run", "--engine", "mpi", "-p", "2", PrintProbe.class.getName());
        assertEquals(0, run.exitCode(), run.both());
        assertEquals(2, linesWith(run.out(), g8), "both ranks must get the cached g " + g8 + "\n" + run.both());
        assertTrue(run.ghosts().isEmpty(), "processes of the run left behind: " + run.ghosts());

        Files.writeString(file, "garbage");
        LpfJvm again = LpfJvm.run(90, env, "run", "--engine", "mpi", "-p", "2", PrintProbe.class.getName());
        assertEquals(0, again.exitCode(), again.both());
        String measured = firstFigure(file); // written again by the measuring job's pid 0
        assertEquals(2, linesWith(again.out(), measured), "both ranks must get pid 0's new g " + measured + "\n" + again.both());
    }

    /** @return how many ranks printed {@code g8} (the ranks' lines may interleave on the shared output) */
    private static int linesWith(String out, String g8) {
        Matcher m = Pattern.compile("of 2: g8=" + Pattern.quote(g8) + " ").matcher(out);
        int n = 0;
        while (m.find()) n++;
        return n;
    }

    /** @return the first g of a cache file, as written */
    private static String firstFigure(Path file) throws Exception {
        java.util.Properties props = new java.util.Properties();
        try (var r = Files.newBufferedReader(file)) {
            props.load(r);
        }
        return props.getProperty("g").split(",")[0];
    }

    /**
     * The figure: with a warm cache, the first Collectives.init of a fresh JVM costs at
     * most 50 ms (measured around the call on pid 0; it measured 0.3-0.8 s of probing before).
     */
    @Test
    void firstCollectivesInitWithAWarmCacheIsFast() throws Exception {
        Map<String, String> env = Map.of("LPF_PROBE_CACHE", "on", "LPF_PROBE_CACHEDIR", dir.toString());
        LpfJvm probe = LpfJvm.run(60, env, "probe", "-p", "4", "--param", "lpf.engine.threads.probeMillis=100");
        assertEquals(0, probe.exitCode(), probe.both());
        assertTrue(probe.out().contains("cache: wrote " + dir), probe.both());

        double best = Double.MAX_VALUE;
        for (int run = 0; run < 3 && best > 50; run++) { // a second run only if the machine was busy
            LpfJvm r = LpfJvm.run(60, env, "run", "-p", "4", TimedCollectivesInit.class.getName());
            assertEquals(0, r.exitCode(), r.both());
            assertTrue(r.ghosts().isEmpty(), "processes of the run left behind: " + r.ghosts());
            Matcher m = Pattern.compile("first Collectives.init at p=4: ([0-9.]+) ms").matcher(r.out());
            assertTrue(m.find(), r.both());
            double ms = Double.parseDouble(m.group(1));
            System.out.printf("first Collectives.init at p=4 with a warm probe cache, fresh JVM (run %d): %.1f ms%n", run + 1, ms);
            best = Math.min(best, ms);
            assertTrue(r.err().isBlank() || !r.err().contains("WARNING"), r.both());
        }
        assertTrue(best <= 50, "first Collectives.init with a warm cache took " + best + " ms (at most 50)");

        // For comparison (printed, not checked): the same without the cache measures in the JVM.
        LpfJvm cold = LpfJvm.run(60, Map.of("LPF_PROBE_CACHE", "off"), "run", "-p", "4", TimedCollectivesInit.class.getName());
        assertEquals(0, cold.exitCode(), cold.both());
        Matcher m = Pattern.compile("first Collectives.init at p=4: ([0-9.]+) ms").matcher(cold.out());
        assertTrue(m.find(), cold.both());
        System.out.printf("first Collectives.init at p=4 without the probe cache, fresh JVM: %s ms%n", m.group(1));
    }
}
