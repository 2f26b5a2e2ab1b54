package org.lpf4j.tools;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A user's program compiled on its own and run the documented way, {@code lpf run --class-path DIR},
 * on the engines whose processes live in several JVMs: its own lambda {@code Reducer} and
 * {@code Combiner} cross JVMs (allreduce, allcombine), and an exception type of its own comes back
 * to pid 0 as the cause. Its classes exist only in the loader {@code lpf run} makes for
 * {@code --class-path}, so an engine that resolves shipped classes through its own loader fails
 * here with {@code ClassNotFoundException} (the hybrid engine did, for every combining put between
 * nodes). The mpi and hybrid cases are skipped where the MPI engine cannot run; the net engine and
 * the hybrid engine over it need nothing installed.
 */
@Timeout(300)
class UserClassesAcrossJvmsTest {
    @TempDir
    static Path work;
    private static Path classes;

    @BeforeAll
    static void compileTheProgram() throws IOException, InterruptedException {
        classes = Files.createDirectories(work.resolve("classes"));
        Path sources = Files.createDirectories(work.resolve("src"));
        Path javac = Path.of(System.getProperty("java.home"), "bin", "javac");
        List<String> args = new ArrayList<>(List.of(javac.toString(), "-d", classes.toString(), "-cp", testClassPath()));
        for (String name : List.of("UserReductions.java", "UserFailure.java")) {
            try (InputStream in = Objects.requireNonNull(UserClassesAcrossJvmsTest.class.getResourceAsStream("/user-program/" + name))) {
                Path file = sources.resolve(name);
                Files.write(file, in.readAllBytes());
                args.add(file.toString());
            }
        }
        // Compiled apart, as a user's program is: by the JDK's javac in a process of its own.
        Process compile = new ProcessBuilder(args).redirectErrorStream(true).start();
        try {
            assertTrue(compile.waitFor(120, TimeUnit.SECONDS), "javac did not finish in 120 s");
            String diagnostics = new String(compile.getInputStream().readAllBytes());
            assertEquals(0, compile.exitValue(), diagnostics);
        } finally {
            compile.destroyForcibly();
        }
        for (String name : List.of("UserReductions", "UserFailure")) {
            assertThrowsClassNotFound(name);
        }
    }

    /** The program must not be on the test's own class path, or the test would prove nothing. */
    private static void assertThrowsClassNotFound(String name) {
        try {
            Class.forName(name);
            throw new AssertionError(name + " is on the test class path; the test needs it only in --class-path");
        } catch (ClassNotFoundException expected) {
            // as it should be
        }
    }

    private static String testClassPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }


    /** @return the sum of squares 1..p, as the program's allreduce computes it */
    private static long squares(int p) { return (long) p * (p + 1) * (2L * p + 1) / 6; }

    @ParameterizedTest(name = "{0} engine, {1} nodes, p = {2}")
    @CsvSource({"mpi, 3, 3", "hybrid, 3, 6", "net, 3, 3", "hybrid over net, 2, 4"})
    void theProgramsOwnOperatorsCrossJvms(String engine, int nodes, int p) throws Exception {
        if (!engine.contains("net")) Launchable.need("mpi");
        List<String> cmd = new ArrayList<>(List.of("run", "--engine", engine.split(" ")[0]));
        if (engine.equals("hybrid over net")) cmd.addAll(List.of("--param", "lpf.engine.hybrid.over=net"));
        if (engine.startsWith("hybrid")) cmd.addAll(List.of("--nodes", Integer.toString(nodes)));
        cmd.addAll(List.of("-p", Integer.toString(p), "--class-path", classes.toString(), "UserReductions"));
        LpfJvm r = LpfJvm.run(150, cmd.toArray(String[]::new));
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.out().contains("user reductions on " + p + " processes: sum of squares " + squares(p)), r::both);
        assertFalse(r.both().contains("ClassNotFoundException"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    @Test
    void theProgramsOwnExceptionReachesPidZeroFromAnotherNode() throws Exception {
        Launchable.need("mpi");
        LpfJvm r = LpfJvm.run(150, "run", "--engine", "hybrid", "--nodes", "2", "-p", "2", "--class-path",
                classes.toString(), "UserFailure");
        assertTrue(r.done(), r::both);
        assertNotEquals(0, r.exitCode(), r::both);
        assertTrue(r.both().contains("UserFailure$Broken: the user's own failure at pid 1"), r::both);
        assertFalse(r.both().contains("did not deserialize"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }
}
