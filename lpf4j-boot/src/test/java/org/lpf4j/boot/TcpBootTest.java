package org.lpf4j.boot;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The boot rules with the {@code tcp} module: p separate JVMs, rank 0 hosting the coordinator. */
class TcpBootTest {

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void everyRuleHoldsAcrossJvms(int p) throws Exception {
        try (Jvms jvms = new Jvms()) {
            TcpJob.start(jvms, p, "127.0.0.1:" + TcpJob.freePort(), TcpJob.newKey(), true, "rules");
            jvms.awaitAll(120_000);
            for (int r = 0; r < p; r++) {
                assertEquals(0, jvms.process(r).exitValue(), jvms.outputs());
                assertTrue(jvms.output(r).contains("PASS rank " + r), jvms.outputs());
            }
        }
    }

    @ParameterizedTest(name = "victim rank {0}")
    @ValueSource(ints = {2, 0})
    void aKilledJvmMakesTheOthersFenceFailNamingIt(int victim) throws Exception {
        int p = 3;
        try (Jvms jvms = new Jvms()) {
            TcpJob.start(jvms, p, "127.0.0.1:" + TcpJob.freePort(), TcpJob.newKey(), true, "victim", Integer.toString(victim));
            for (int r = 0; r < p; r++) jvms.awaitOutput(r, "READY " + r, 60_000);
            jvms.process(victim).destroyForcibly(); // SIGKILL
            for (int r = 0; r < p; r++) {
                if (r == victim) continue;
                assertTrue(jvms.process(r).waitFor(15, java.util.concurrent.TimeUnit.SECONDS), jvms.outputs());
                assertEquals(0, jvms.process(r).exitValue(), jvms.outputs());
                String line = TcpJob.lines(jvms.output(r), "FAILED-AS-EXPECTED").getFirst();
                long ms = Long.parseLong(line.split(" ")[1]);
                assertTrue(ms < 10_000, "the fence failed within its 10 s timeout: " + line);
                assertTrue(line.contains("missing=[" + victim + "]"), line);
            }
        }
    }

    @Test
    void noJvmIsLeftBehind() throws Exception {
        // Jvms.close() fails if a process survives; a job whose ranks never find each other must still end.
        // The address answers but never challenges: each rank connects and then waits for a coordinator that never speaks.
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            silent.setSoTimeout(60_000);
            java.util.List<java.net.Socket> joining = new java.util.ArrayList<>();
            try (Jvms jvms = new Jvms()) {
                TcpJob.start(jvms, 2, "127.0.0.1:" + silent.getLocalPort(), TcpJob.newKey(), false, "rules");
                // Close the JVMs only once both run and try to join (their connections arrived).
                for (int r = 0; r < 2; r++) joining.add(silent.accept());
            } finally {
                for (java.net.Socket s : joining) s.close();
            }
        }
    }
}
