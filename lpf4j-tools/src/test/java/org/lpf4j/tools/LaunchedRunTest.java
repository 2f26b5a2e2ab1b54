package org.lpf4j.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.examples.InnerProduct;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lpf run --engine mpi|hybrid -p N} in a real {@code lpf} JVM ({@link LpfJvm}: bounded time,
 * process tree killed, nothing left behind): the run goes through mpirun, the program's checked
 * result comes back, the header line is printed once (by the launching side, not by every rank),
 * and the timing line tells the truth about processes that ran in other JVMs (it names them as not
 * timed here; it does not claim they made 0 syncs). With {@code --debug} a correct program passes
 * on both engines (every process makes the same syncs, whichever JVM it runs in) and a programming
 * error is still reported with the program's file and line. Skipped where the engine cannot run
 * (no mpirun or libmpi).
 */
@Timeout(180)
class LaunchedRunTest {
    private static final Pattern TIMING = Pattern.compile(
            "on the mpi engine: p=3  supersteps=(\\d+)  time=[0-9.]+ ms  per superstep=[0-9.]+ µs  \\(in sync: [0-9.]+ µs\\)");
    private static final String DEBUG_ON = "lpf run [debug layer on (--debug): programming errors are reported with"
            + " file:line; slower]: ";


    /** @return the header lines ({@code lpf run...: <class> on the E engine (...), ...}) in {@code out} */
    private static List<String> headers(String out, String engine) {
        return out.lines().filter(l -> l.startsWith("lpf run") && l.contains(" on the " + engine + " engine (")).toList();
    }

    private static String innerProductResult(int n, int p) {
        return String.format("inner product of two vectors of length %d on %d processes: %.1f (sequential check: equal)",
                n, p, InnerProduct.sequential(n));
    }

    @Test
    void anSpmdProgramOnTheMpiEngineReportsWhatPidZeroTimed() throws Exception {
        Launchable.need("mpi");
        LpfJvm r = LpfJvm.run(150, "run", "--engine", "mpi", "-p", "3", "org.lpf4j.examples.InnerProduct", "20000");
        String out = r.out();
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(out.contains(innerProductResult(20000, 3)), r::both);
        assertEquals(List.of("lpf run: org.lpf4j.examples.InnerProduct on the mpi engine (--engine mpi), p = 3 (-p 3)"),
                headers(out, "mpi"), "one header line, from the launching side: " + r.both());
        assertTrue(out.startsWith("lpf run: org.lpf4j.examples.InnerProduct on the mpi engine (--engine mpi)"), r::both);
        Matcher m = TIMING.matcher(out);
        assertTrue(m.find(), r::both);
        assertEquals(3, Integer.parseInt(m.group(1)), "InnerProduct makes three supersteps: " + r.both());
        assertTrue(out.contains("note: timed in this JVM only (pid 0); pids 1-2 ran in other JVMs: not timed or"
                + " counted here"), r::both);
        assertFalse(out.contains("warning"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    /** A program with a main, which every rank of the job runs. */
    public static final class MainOnEveryRank {
        private MainOnEveryRank() {}

        /** Runs one empty section of 2 processes. */
        public static void main(String[] args) {
            Lpf.root().exec(2, ctx -> ctx.sync()); // ranks >= 1 serve the section inside Lpf.root()
            System.out.println("main ran its section");
        }
    }

    @Test
    void aMainProgramUnderTheLauncherGetsOneHeaderLine() throws Exception {
        Launchable.need("mpi");
        LpfJvm r = LpfJvm.run(150, "run", "--engine", "mpi", "-p", "2", MainOnEveryRank.class.getName());
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertEquals(List.of("lpf run: " + MainOnEveryRank.class.getName() + " on the mpi engine (--engine mpi), p chosen"
                + " by the program's main (Lpf.MAX_P = 2 from -p 2: a job of 2 processes)"), headers(r.out(), "mpi"), r::both);
        assertTrue(r.out().contains("main ran its section"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    @Test
    void theDebugLayerPassesACorrectProgramOnTheMpiEngine() throws Exception {
        Launchable.need("mpi");
        LpfJvm r = LpfJvm.run(150, "run", "--debug", "--engine", "mpi", "-p", "4", "org.lpf4j.examples.InnerProduct", "20000");
        assertPassedChecked(r, "mpi", "p = 4 (-p 4)", "pid 0", "pids 1-3");
    }

    @Test
    void theDebugLayerPassesACorrectProgramOnTheHybridEngine() throws Exception {
        Launchable.need("hybrid");
        LpfJvm r = LpfJvm.run(150, "run", "--debug", "--engine", "hybrid", "--nodes", "2", "-p", "4",
                "org.lpf4j.examples.InnerProduct", "20000");
        assertPassedChecked(r, "hybrid", "p = 4 (-p 4), 2 JVMs (--nodes 2)", "pids 0-1", "pids 2-3");
    }

    /** A run of InnerProduct on 4 processes with the debug layer on: passed, result checked, one header, user syncs counted. */
    private static void assertPassedChecked(LpfJvm r, String engine, String p, String timedHere, String elsewhere) {
        String out = r.out();
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(out.contains(innerProductResult(20000, 4)), r::both);
        assertEquals(List.of(DEBUG_ON + "org.lpf4j.examples.InnerProduct on the " + engine + " engine (--engine " + engine
                + "), " + p), headers(out, engine), "one header line, from the launching side: " + r.both());
        // The debug layer's own syncs are not the program's: the timing counts InnerProduct's three.
        assertTrue(out.contains("on the " + engine + " engine: p=4  supersteps=3  "), r::both);
        assertTrue(out.contains("note: timed in this JVM only (" + timedHere + "); " + elsewhere + " ran in other JVMs"), r::both);
        assertFalse(out.contains("warning"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    /** pid 3 puts 8 bytes into the 4 pid 2 registered: on 2 nodes of 2 threads, both live on node 1. */
    public static final class TooSmallOnNodeOne implements Spmd {
        private static final long serialVersionUID = 1L;

        /** For {@code lpf run}. */
        public TooSmallOnNodeOne() {}

        @Override
        public void run(Context ctx) {
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            Memslot src = ctx.registerLocal(MemorySegment.ofArray(new byte[8]));
            Memslot dst = ctx.registerGlobal(MemorySegment.ofArray(new byte[ctx.pid() == 2 ? 4 : 8]));
            ctx.sync();
            if (ctx.pid() == 3) ctx.put(src, 0, 2, dst, 0, 8);
            ctx.sync();
            ctx.deregister(dst);
            ctx.deregister(src);
        }
    }

    /**
     * The threads of a hybrid node that is not the one which called exec check each other: the
     * debug layer (not the engine) reports pid 3's put against pid 2's registration, with both lines.
     */
    @Test
    void theDebugLayerChecksTheThreadsOfAnotherNodeAgainstEachOther() throws Exception {
        Launchable.need("hybrid");
        LpfJvm r = LpfJvm.run(150, "run", "--debug", "--engine", "hybrid", "--nodes", "2", "-p", "4",
                TooSmallOnNodeOne.class.getName());
        assertTrue(r.done(), r::both);
        assertNotEquals(0, r.exitCode(), r::both);
        assertTrue(r.err().matches("(?s).*failed: lpf debug \\[out-of-bounds\\] put\\(.*\\) at LaunchedRunTest\\$TooSmallOnNodeOne"
                + "\\.run\\(LaunchedRunTest\\.java:\\d+\\) on pid 3 of 4 \\(superstep 2\\): destination area \\[0, 8\\) exceeds the 4"
                + " bytes pid 2 registered for .* \\(at LaunchedRunTest\\$TooSmallOnNodeOne\\.run\\(LaunchedRunTest\\.java:\\d+\\)\\).*"),
                r::both);
        assertEquals(1, headers(r.out(), "hybrid").size(), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    @Test
    void theDebugLayerReportsAProgrammingErrorOnTheMpiEngine() throws Exception {
        Launchable.need("mpi");
        LpfJvm r = LpfJvm.run(150, "run", "--engine", "mpi", "-p", "3", "--debug", RunDebugTest.LeavesASlot.class.getName());
        assertTrue(r.done(), r::both);
        assertNotEquals(0, r.exitCode(), r::both);
        assertTrue(r.err().contains("the SPMD section of " + RunDebugTest.LeavesASlot.class.getName() + " failed: lpf debug"
                + " [slots-left-registered] return from the SPMD function at RunDebugTest$LeavesASlot.run(RunDebugTest.java:"),
                r::both);
        assertTrue(r.err().contains("1 slot(s) still registered: [local#0(8 B)"), r::both);
        assertEquals(1, headers(r.out(), "mpi").size(), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    /**
     * MPICH's library on a machine whose only launcher is Open MPI's, reached as plain {@code mpirun}
     * and {@code mpiexec} (as Debian's alternatives do): the run is refused, saying which launcher is
     * missing, instead of starting the ranks as jobs of one process each.
     */
    @Test
    void withoutTheLaunchersOfTheLibraryTheRunIsRefusedSayingWhy(@org.junit.jupiter.api.io.TempDir java.nio.file.Path bin)
            throws Exception {
        java.util.Optional<java.nio.file.Path> openMpi = java.util.stream.Stream.of(System.getenv("PATH").split(":"))
                .map(d -> java.nio.file.Path.of(d, "mpirun.openmpi")).filter(java.nio.file.Files::isExecutable).findFirst();
        org.lpf4j.testkit.Needs.that(openMpi.isPresent(), "Open MPI is not installed");
        for (String name : new String[] {"mpirun", "mpiexec"}) {
            java.nio.file.Files.createSymbolicLink(bin.resolve(name), openMpi.get().toRealPath());
        }
        LpfJvm r;
        try {
            r = LpfJvm.run(60, java.util.Map.of("PATH", bin.toString()), "run", "--engine", "mpi", "-p", "2",
                    "--param", "lpf.engine.mpi.library=libmpich.so.12", "org.lpf4j.examples.InnerProduct", "20000");
        } finally {
            for (String name : new String[] {"mpirun", "mpiexec"}) java.nio.file.Files.delete(bin.resolve(name));
        }
        assertTrue(r.done(), r::both);
        assertEquals(UsageException.EXIT_CODE, r.exitCode(), r::both);
        assertTrue(r.err().contains("the MPI library libmpich.so.12 is MPICH's, and MPICH's launcher is not on the PATH"), r::both);
        assertFalse(r.out().contains("inner product"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    /**
     * {@code lpf run --engine hybrid --nodes 3 -p 5}: three JVMs of at most 2 threads, and a machine
     * of 5 processes (2 + 2 + 1), not 3 × 2 = 6.
     */
    @Test
    void theHybridEngineRunsExactlyTheProcessesAskedFor() throws Exception {
        Launchable.need("hybrid");
        LpfJvm r = LpfJvm.run(150, "run", "--engine", "hybrid", "--nodes", "3", "-p", "5", "org.lpf4j.examples.InnerProduct", "20000");
        String out = r.out();
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(out.contains(String.format("inner product of two vectors of length 20000 on 5 processes: %.1f "
                + "(sequential check: equal)", InnerProduct.sequential(20000))), r::both);
        assertTrue(out.contains("on the hybrid engine (--engine hybrid), p = 5 (-p 5), 3 JVMs (--nodes 3)"), r::both);
        assertTrue(out.contains("note: timed in this JVM only (pids 0-1); pids 2-4 ran in other JVMs"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    /**
     * With MPICH's library asked for on a machine that has both MPIs, the ranks start under MPICH's
     * Hydra: one job of 3 processes (under Open MPI's mpirun each rank was a job of one, and the
     * program ran three times on one process each).
     */
    @Test
    void mpichsLibraryRunsUnderMpichsLauncher() throws Exception {
        Launchable.needMpich();
        LpfJvm r = LpfJvm.run(150, "run", "--engine", "mpi", "-p", "3", "--param", "lpf.engine.mpi.library=libmpich.so.12",
                "org.lpf4j.examples.InnerProduct", "20000");
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        String result = "inner product of two vectors of length 20000 on ";
        assertEquals(1, r.out().lines().filter(l -> l.startsWith(result)).count(), () -> "one result: " + r.both());
        assertTrue(r.out().contains(result + "3 processes: "), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }
}
