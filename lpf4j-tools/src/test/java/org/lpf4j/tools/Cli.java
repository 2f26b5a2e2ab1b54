package org.lpf4j.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs {@code lpf} in this JVM and captures what it prints (also a program's System.out). */
record Cli(int status, String out, String err) {

    static Cli run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        ByteArrayOutputStream programOut = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int status;
        synchronized (Cli.class) {
            System.setOut(new PrintStream(programOut, true, StandardCharsets.UTF_8));
            try {
                status = LpfCommand.execute(new PrintWriter(out), new PrintWriter(err), args);
            } finally {
                System.setOut(saved);
            }
        }
        return new Cli(status, programOut.toString(StandardCharsets.UTF_8) + out, err.toString());
    }

    /** @return this, after checking the status (the message shows both outputs) */
    Cli expect(int expectedStatus) {
        assertEquals(expectedStatus, status, () -> "status; stdout:\n" + out + "\nstderr:\n" + err);
        return this;
    }

    /** @return this, after checking the status and that the error output contains {@code text} */
    Cli expectError(int expectedStatus, String text) {
        expect(expectedStatus);
        assertTrue(err.contains(text), () -> "stderr contains '" + text + "':\n" + err);
        return this;
    }

    /** Fails if a thread of an LPF section or of the benchmark harness is still alive. */
    static void assertNoLpfThreads() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("lpf-")) {
                throw new AssertionError("thread left behind: " + t.getName());
            }
        }
    }
}
