package org.lpf4j.tools;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lpf4j.spi.Engines;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * -p means p on the engines whose processes are JVMs started by a launcher: {@code lpf run
 * --engine E -p N} of a main that asks for {@code Lpf.MAX_P} ({@link MaxPMain}) runs a section of
 * exactly N processes, with one header line saying where its {@code Lpf.MAX_P} came from, and leaves
 * nothing behind (in a real {@code lpf} JVM, {@link LpfJvm}). The threads engine's case runs in
 * process ({@code RunCommandTest}). Skipped where the engine cannot run (mpi and hybrid need
 * mpirun and libmpi; net needs nothing).
 */
@Timeout(300)
class ExactProcsRunTest {
    @ParameterizedTest(name = "{0} -p {1}")
    @CsvSource({"mpi, 1", "mpi, 3", "net, 1", "net, 3", "hybrid, 1", "hybrid, 3"})
    void aMainAskingForMaxPGetsExactlyTheProcessesOfDashP(String engine, int p) throws Exception {
        assumeTrue(Engines.installed().stream().anyMatch(e -> e.name().equals(engine) && e.launcher().isPresent()
                && e.query().canRun()), "the " + engine + " engine cannot run here");
        LpfJvm r = LpfJvm.run(240, "run", "--engine", engine, "-p", Integer.toString(p), MaxPMain.class.getName());
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertEquals(List.of("MAX_P section of " + p + " processes"),
                r.out().lines().filter(l -> l.startsWith("MAX_P section")).toList(), r::both);
        assertEquals(List.of("lpf run: " + MaxPMain.class.getName() + " on the " + engine + " engine (--engine " + engine
                + "), p chosen by the program's main (Lpf.MAX_P = " + p + " from -p " + p + ": a job of " + p
                + " processes)"), r.out().lines().filter(l -> l.startsWith("lpf run")).toList(), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }
}
