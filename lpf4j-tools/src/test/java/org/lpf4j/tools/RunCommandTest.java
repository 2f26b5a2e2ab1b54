package org.lpf4j.tools;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Context;
import org.lpf4j.Spmd;
import org.lpf4j.engine.threads.ThreadsParameters;
import org.lpf4j.examples.InnerProduct;
import org.lpf4j.spi.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.spi.ToolProvider;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RunCommandTest {
    private static final Pattern TIMING = Pattern.compile(
            "p=(\\d+)  supersteps=(\\d+)  time=([0-9.]+) ms  per superstep=([0-9.]+) µs  \\(in sync: ([0-9.]+) µs\\)");

    @AfterEach
    void noThreadsLeft() { Cli.assertNoLpfThreads(); }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void innerProductPrintsItsCheckedResultAndTheTimePerSuperstep(int p) {
        String out = Cli.run("run", "-p", Integer.toString(p), "org.lpf4j.examples.InnerProduct", "20000").expect(0).out();
        assertTrue(out.contains(String.format("inner product of two vectors of length 20000 on %d processes: %.1f "
                + "(sequential check: equal)", p, InnerProduct.sequential(20000))), out);
        Matcher m = TIMING.matcher(out);
        assertTrue(m.find(), out);
        assertEquals(p, Integer.parseInt(m.group(1)), out);
        assertEquals(3, Integer.parseInt(m.group(2)), "InnerProduct makes three supersteps: " + out);
        double totalMs = Double.parseDouble(m.group(3));
        double perStepUs = Double.parseDouble(m.group(4));
        assertTrue(totalMs > 0 && perStepUs > 0, out);
        assertEquals(totalMs * 1000 / 3, perStepUs, perStepUs * 0.01 + 0.01, out);
        assertTrue(Double.parseDouble(m.group(5)) <= perStepUs, "sync time is part of the superstep time: " + out);
    }

    @Test
    void withoutProcsAnSpmdProgramRunsOnTheWholeMachine() {
        int machine = ThreadsParameters.PROCS.get();
        String out = Cli.run("run", "org.lpf4j.examples.InnerProduct", "100").expect(0).out();
        assertTrue(out.contains("on " + machine + " processes"), out);
        // The first line says what runs where, and where each choice came from.
        assertEquals("lpf run: org.lpf4j.examples.InnerProduct on the threads engine (the usable engine of highest priority), p = "
                + machine + " (machine size " + machine + ": lpf.engine.threads.procs from "
                + ThreadsParameters.PROCS.source().label() + ")", out.lines().findFirst().orElse(""), out);
        String forced = Cli.run("run", "--engine", "threads", "-p", "2", "org.lpf4j.examples.InnerProduct", "100").expect(0).out();
        assertEquals("lpf run: org.lpf4j.examples.InnerProduct on the threads engine (--engine threads), p = 2 (-p 2)",
                forced.lines().findFirst().orElse(""), forced);
    }

    @Test
    void procsAboveTheMachineSizeRaiseItForTheRunOnly() {
        int before = ThreadsParameters.PROCS.get();
        Parameters.Source source = ThreadsParameters.PROCS.source();
        int p = before + 3;
        String out = Cli.run("run", "-p", Integer.toString(p), "org.lpf4j.examples.InnerProduct", "100").expect(0).out();
        assertTrue(out.contains("on " + p + " processes"), out);
        assertEquals(before, ThreadsParameters.PROCS.get());
        assertEquals(source, ThreadsParameters.PROCS.source());
    }

    /**
     * -p means p: a main that asks for Lpf.MAX_P gets exactly -p processes, below the core count
     * as well as above it, and the header says where its Lpf.MAX_P came from.
     */
    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void aMainAskingForMaxPGetsExactlyTheProcessesOfDashP(int p) {
        int before = ThreadsParameters.PROCS.get();
        String out = Cli.run("run", "-p", Integer.toString(p), MaxPMain.class.getName()).expect(0).out();
        assertTrue(out.contains("MAX_P section of " + p + " processes"), out);
        assertEquals(java.util.List.of("lpf run: " + MaxPMain.class.getName() + " on the threads engine (the usable engine"
                + " of highest priority), p chosen by the program's main (Lpf.MAX_P = " + p + " from -p " + p + ")"),
                out.lines().filter(l -> l.startsWith("lpf run: ")).toList(), out);
        assertEquals(before, ThreadsParameters.PROCS.get(), "the machine size is restored after the run");
    }

    @Test
    void withoutProcsTheHeaderSaysMaxPIsTheMachineSizeAndWhereThatCameFrom() {
        int machine = ThreadsParameters.PROCS.get();
        String out = Cli.run("run", MaxPMain.class.getName()).expect(0).out();
        assertTrue(out.contains("MAX_P section of " + machine + " processes"), out);
        assertTrue(out.lines().anyMatch(l -> l.endsWith("p chosen by the program's main (Lpf.MAX_P = machine size "
                + machine + ": lpf.engine.threads.procs from " + ThreadsParameters.PROCS.source().label() + ")")), out);
    }

    @Test
    void halfProcessorsRunsThroughItsMainOnHalfTheMachine() {
        String out = Cli.run("run", "-p", "4", "org.lpf4j.examples.HalfProcessors").expect(0).out();
        Matcher m = Pattern.compile("My assigned parallel computer has (\\d+) processors").matcher(out);
        assertTrue(m.find(), out);
        int machine = Integer.parseInt(m.group(1));
        assertEquals(4, machine, "-p 4 makes the machine 4 processors: " + out);
        int half = (machine + 1) / 2;
        assertTrue(out.contains("using " + half + " processes"), out);
        for (int k = 0; k < half; k++) assertTrue(out.contains("x[ " + k + " ] = " + 4 * k), out);
        assertTrue(!out.contains("x[ " + half + " ]"), out);
    }

    @Test
    void parametersAndEngineAreAppliedDuringTheRunAndRestoredAfterwards() {
        ParamProbe.seen = null;
        Cli.run("run", "-p", "2", "--engine", "threads", "--param", "lpf.engine.threads.spin=7",
                ParamProbe.class.getName()).expect(0);
        assertEquals("threads/7", ParamProbe.seen);
        assertEquals(Parameters.Source.DEFAULT, ThreadsParameters.SPIN.source());
        assertEquals("", org.lpf4j.spi.Engines.choice().get());
    }

    /** Records the parameters it sees from inside the section. */
    public static final class ParamProbe implements Spmd {
        private static final long serialVersionUID = 1L;
        static volatile String seen;

        /** For lpf run. */
        public ParamProbe() {}

        @Override
        public void run(Context ctx) {
            if (ctx.pid() == 0) seen = org.lpf4j.spi.Engines.choice().get() + "/" + ThreadsParameters.SPIN.get();
        }
    }

    /** Fails at pid 1 after writing a report at pid 0. */
    public static final class Failing implements Spmd {
        private static final long serialVersionUID = 1L;

        /** For lpf run. */
        public Failing() {}

        @Override
        public void run(Context ctx) {
            if (ctx.pid() == 0) ctx.args().output().setString(0, "partial report\n");
            if (ctx.pid() == 1) throw new IllegalStateException("boom at pid 1");
            ctx.sync();
        }
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void everyProcessRunsItsOwnInstanceOfAnSpmdClass(int p) {
        PerProcessField.INSTANCES.clear();
        PerProcessField.WRONG.set(0);
        String out = Cli.run("run", "-p", Integer.toString(p), PerProcessField.class.getName()).expect(0).out();
        assertEquals(p, PerProcessField.INSTANCES.size(), "one instance per process: " + out);
        assertEquals(0, PerProcessField.WRONG.get(), "supersteps in which a process saw another's field value");
        assertTrue(out.contains("p=" + p + "  supersteps=" + PerProcessField.ROUNDS + "  "), "timing still wraps it: " + out);
    }

    /** Keeps its pid in an instance field across supersteps; shared by all processes, they would clobber it. */
    public static final class PerProcessField implements Spmd {
        private static final long serialVersionUID = 1L;
        static final int ROUNDS = 20;
        static final Set<PerProcessField> INSTANCES = ConcurrentHashMap.newKeySet();
        static final AtomicInteger WRONG = new AtomicInteger();
        private int mine = -1;

        /** For lpf run. */
        public PerProcessField() {}

        @Override
        public void run(Context ctx) {
            INSTANCES.add(this);
            for (int round = 0; round < ROUNDS; round++) {
                mine = ctx.pid() * ROUNDS + round;
                ctx.sync(); // every process has written its field before any reads it back
                if (mine != ctx.pid() * ROUNDS + round) WRONG.incrementAndGet();
            }
        }
    }

    /** Has neither a no-argument constructor nor a main method. */
    public static final class NoConstructor implements Spmd {
        private static final long serialVersionUID = 1L;

        /** @param x unused */
        public NoConstructor(int x) {}

        @Override public void run(Context ctx) {}
    }

    @Test
    void aFailingSectionExitsWithStatusOneShowingTheCauseAndPid0sOutput() {
        Cli r = Cli.run("run", "-p", "3", Failing.class.getName()).expect(1);
        assertTrue(r.out().contains("partial report"), r.out());
        assertTrue(r.err().contains("failed") && r.err().contains("boom at pid 1"), r.err());
    }

    @Test
    void classPathLoadsAProgramCompiledElsewhere(@TempDir Path dir) throws IOException {
        Path source = dir.resolve("Hello.java");
        Files.writeString(source, """
                public class Hello implements org.lpf4j.Spmd {
                    public Hello() {}
                    @Override public void run(org.lpf4j.Context ctx) {
                        ctx.sync();
                        if (ctx.pid() == 0) {
                            ctx.args().output().setString(0, "hello from " + ctx.nprocs() + " " + ctx.args().symbols());
                        }
                    }
                }
                """);
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow();
        assertEquals(0, javac.run(System.out, System.err, "-cp", System.getProperty("java.class.path"),
                "-d", dir.toString(), source.toString()), "compiles");
        String out = Cli.run("run", "-p", "5", "--class-path", dir.toString(), "Hello", "a", "b").expect(0).out();
        assertTrue(out.contains("hello from 5 [a, b]"), out);
        assertTrue(out.contains("p=5  supersteps=1  "), out);
        Cli.run("run", "Hello").expectError(2, "class 'Hello' not found");
    }

    /**
     * The JDK 25 launch protocol (JEP 512): a compact source file's instance {@code void main()},
     * compiled elsewhere, runs under {@code lpf run --class-path} as under {@code java}; so does a
     * class whose only main is a package-private {@code static void main(String[])}.
     */
    @Test
    void instanceAndNonPublicMainsRunAsTheJavaLauncherRunsThem(@TempDir Path dir) throws IOException {
        Path compact = dir.resolve("Compact.java"), quiet = dir.resolve("Quiet.java");
        Path outCompact = dir.resolve("compact.txt"), outQuiet = dir.resolve("quiet.txt");
        Files.writeString(compact, """
                import org.lpf4j.Args;
                import org.lpf4j.Lpf;

                void main() throws Exception {
                    int[] p = new int[1];
                    Lpf.root().exec(3, ctx -> { ctx.sync(); if (ctx.pid() == 0) p[0] = ctx.nprocs(); }, Args.NONE);
                    java.nio.file.Files.writeString(java.nio.file.Path.of("%s"), "compact main on " + p[0]);
                }
                """.formatted(outCompact));
        Files.writeString(quiet, """
                class Quiet {
                    static void main(String[] args) throws Exception {
                        java.nio.file.Files.writeString(java.nio.file.Path.of(args[0]), "static main got " + args.length);
                    }
                }
                """);
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow();
        assertEquals(0, javac.run(System.out, System.err, "-cp", System.getProperty("java.class.path"),
                "-d", dir.toString(), compact.toString(), quiet.toString()), "compiles");
        Cli.run("run", "--class-path", dir.toString(), "Compact").expect(0);
        assertEquals("compact main on 3", Files.readString(outCompact));
        Cli.run("run", "--class-path", dir.toString(), "Quiet", outQuiet.toString()).expect(0);
        assertEquals("static main got 1", Files.readString(outQuiet));
    }

    @Test
    void badProgramsAreUsageErrors() {
        String ip = "org.lpf4j.examples.InnerProduct";
        Cli.run("run", "org.nowhere.Missing").expectError(2, "lpf run: class 'org.nowhere.Missing' not found");
        Cli.run("run", "java.util.ArrayList").expectError(2, "neither implements org.lpf4j.Spmd");
        Cli.run("run", NoConstructor.class.getName()).expectError(2, "no public no-argument constructor");
        Cli.run("run", "--engine", "nonesuch", ip).expectError(2, "lpf run: ").expectError(2, "'nonesuch'");
        Cli.run("run", "--param", "lpf.no.such=1", ip).expectError(2, "lpf run: ").expectError(2, "lpf.no.such");
        Cli.run("run", "--param", "lpf.engine.threads.spin=fast", ip).expectError(2, "'fast'");
        Cli.run("run", "--class-path", "/no/such/dir", ip).expectError(2, "'/no/such/dir' does not exist");
        assertEquals("", org.lpf4j.spi.Engines.choice().get(), "a failed --engine is not left behind");
    }
}
