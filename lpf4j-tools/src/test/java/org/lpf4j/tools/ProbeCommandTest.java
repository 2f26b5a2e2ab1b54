package org.lpf4j.tools;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Machine;

import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProbeCommandTest {
    private static final Pattern ROW = Pattern.compile(
            "^\\s+(\\d+)\\s+([0-9.]+e[-+]\\d+)\\s+([0-9.]+)\\s+([0-9.]+)$", Pattern.MULTILINE);

    @AfterEach
    void noThreadsLeft() { Cli.assertNoLpfThreads(); }

    /** Checks the header and that every size has positive, mutually consistent g and l. */
    private static void assertTable(String out, String header) {
        assertTrue(out.contains(header), out);
        assertTrue(out.contains("msg size (B)") && out.contains("g (s/B)") && out.contains("g (ns/B)")
                && out.contains("l (µs)"), out);
        Matcher m = ROW.matcher(out);
        int rows = 0;
        long lastSize = -1;
        while (m.find()) {
            long size = Long.parseLong(m.group(1));
            double gSeconds = Double.parseDouble(m.group(2));
            double gNanos = Double.parseDouble(m.group(3));
            double lMicros = Double.parseDouble(m.group(4));
            assertTrue(size > lastSize, out);
            assertTrue(gSeconds > 0 && lMicros > 0, out);
            assertEquals(gSeconds * 1e9, gNanos, gNanos * 1e-3 + 1e-5, out);
            lastSize = size;
            rows++;
        }
        assertTrue(rows >= 2, "a row per measured message size: " + out);
    }

    @Test
    void probeInsideAnExecOfThreeProcesses() {
        String out = Cli.run("probe", "-p", "3", "--param", "lpf.engine.threads.probeMillis=60").expect(0).out();
        assertTable(out, "lpf probe: threads engine, exec of 3: p=3, freeP=");
    }

    /**
     * On an engine whose processes come from its launcher, -p N starts N processes under it (as
     * lpf run -p N does) and measures a section of N; it used to probe the one process of this JVM.
     */
    @Test
    void probeWithProcessesOnTheMpiEngineRunsThemUnderItsLauncher() throws Exception {
        Launchable.need("mpi");
        LpfJvm r = LpfJvm.run(45, "probe", "--engine", "mpi", "-p", "2", "--param", "lpf.engine.mpi.probeMillis=50");
        assertTrue(r.done(), r.both());
        assertEquals(0, r.exitCode(), r.both());
        assertTable(r.out(), "lpf probe: mpi engine, exec of 2: p=2, freeP=");
        assertTrue(r.ghosts().isEmpty(), "processes of the run left behind: " + r.ghosts());
    }

    @Test
    void probeOfTheRootReportsTheMachineSize() {
        int machine = org.lpf4j.engine.threads.ThreadsParameters.PROCS.get();
        String out = Cli.run("probe", "--param", "lpf.engine.threads.probeMillis=60").expect(0).out();
        assertTable(out, "lpf probe: threads engine, root context: p=" + machine + ", freeP=" + machine);
    }

    @Test
    void tableFormatsGivenValues() {
        Machine m = new Machine(2, 2, new long[] {8, 1024}, new double[] {2e-9, 5e-11}, new double[] {1e-6, 2.5e-6});
        String out = ProbeCommand.table("threads", "root context", m);
        assertTable(out, "lpf probe: threads engine, root context: p=2, freeP=2");
        assertTrue(out.contains("8     2.0000e-09      2.00000        1.000"), out);
        assertTrue(out.contains("1024     5.0000e-11      0.05000        2.500"), out);
        assertTrue(out.contains("freeP: processes an exec(Lpf.MAX_P, ...) from this context gets"), out);
        assertTrue(!out.contains("UNRELIABLE"), out);
        String warned = ProbeCommand.table("threads", "root context", m.withWarning("8 B: unreliable after 3 measurements"));
        assertTrue(warned.contains("UNRELIABLE 8 B: unreliable after 3 measurements"), warned);
        assertTrue(!out.contains("levels:"), out);
    }

    @Test
    void tablePrintsTheLevelsWhenTheMachineHasThem() {
        Machine whole = new Machine(4, 4, new long[] {8, 1024}, new double[] {2e-9, 5e-11}, new double[] {1e-6, 2.5e-6});
        Machine intra = new Machine(2, 0, new long[] {8, 1024}, new double[] {1e-9, 1e-11}, new double[] {5e-7, 5e-7});
        Machine inter = new Machine(2, 0, new long[] {8, 1024}, new double[] {4e-9, 2e-10}, new double[] {3e-6, 3e-6});
        String out = ProbeCommand.table("hybrid", "root context",
                whole.withLevels(new org.lpf4j.MachineLevels(new int[] {2, 2}, intra, inter)));
        assertTrue(out.contains("levels: 2 nodes (2 + 2 processes; pids numbered node by node)"), out);
        assertTrue(out.contains("1024        0.01000        0.500        0.20000        3.000"), out);
        assertTrue(!out.contains("UNRELIABLE"), out);
        String warned = ProbeCommand.table("hybrid", "root context", whole.withLevels(new org.lpf4j.MachineLevels(
                new int[] {2, 2}, intra, inter.withWarning("8 B: unreliable after 3 measurements"))));
        assertTrue(warned.contains("UNRELIABLE inter: 8 B: unreliable after 3 measurements"), warned);
    }
}
