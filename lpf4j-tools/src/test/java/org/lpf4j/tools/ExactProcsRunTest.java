package org.lpf4j.tools;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lpf4j.spi.Engines;
import org.lpf4j.testkit.ProcessOutput;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        Launchable.need(engine);
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

    /**
     * A job of 2 ranks started by hand under mpirun cannot give -p 3 to a main: each rank refuses
     * it before the program starts, naming both sizes (instead of running it on 2).
     */
    @org.junit.jupiter.api.Test
    void aMainInAJobOfAnotherSizeIsRefusedSayingWhy() throws Exception {
        var mpi = Engines.installed().stream().filter(e -> e.name().equals("mpi") && e.launcher().isPresent()
                && e.query().canRun()).findFirst();
        org.lpf4j.testkit.Needs.that(mpi.isPresent(), "the mpi engine cannot run here");
        List<String> command = mpi.get().launcher().get().command(RunCommand.thisJvm(2, LpfCommand.class.getName(),
                List.of("run", "--engine", "mpi", "-p", "3", MaxPMain.class.getName())));
        Process proc = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            var output = ProcessOutput.drain(proc.getInputStream());
            assertTrue(proc.waitFor(180, java.util.concurrent.TimeUnit.SECONDS), "the job ended");
            String out = output.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(proc.exitValue() != 0, out);
            assertTrue(out.contains("lpf run: -p 3: the mpi engine provides 2 processes in this JVM (its machine size, which"
                    + " it cannot change here), so the program's Lpf.MAX_P would be 2, not 3"), out);
            assertTrue(!out.contains("MAX_P section"), "the program did not start: " + out);
        } finally {
            proc.descendants().forEach(ProcessHandle::destroyForcibly);
            proc.destroyForcibly();
        }
    }
}
