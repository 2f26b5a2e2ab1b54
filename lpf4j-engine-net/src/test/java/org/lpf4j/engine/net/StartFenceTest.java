package org.lpf4j.engine.net;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.boot.tcp.TcpCoordinator;
import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.BootParameters;

import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The start's fence waits as long as the processes may take to meet ({@code lpf.engine.net.setupMillis}),
 * not the boot's default fence timeout: the JVMs of a large job on a few cores start minutes apart
 * (64 JVMs on 2 loaded cores failed the boot's 10 s). Two processes as threads with their own tcp
 * boot sessions, the second arriving after the boot's fence timeout has passed.
 */
@Timeout(60)
class StartFenceTest {
    private static final long LATE_MILLIS = 1_200;

    @AfterEach
    void clear() {
        System.clearProperty(BootParameters.FENCE_TIMEOUT.key());
        System.clearProperty(NetParameters.SETUP_MILLIS.key());
    }

    @Test
    void aProcessLaterThanTheBootsFenceTimeoutStillMeetsTheOthers() throws Exception {
        System.setProperty(BootParameters.FENCE_TIMEOUT.key(), "300");
        Throwable[] thrown = start();
        assertNull(thrown[0], () -> "rank 0: " + thrown[0]);
        assertNull(thrown[1], () -> "rank 1: " + thrown[1]);
    }

    @Test
    void aProcessLaterThanSetupMillisFailsTheStartNamingTheParameter() throws Exception {
        System.setProperty(NetParameters.SETUP_MILLIS.key(), "300");
        Throwable[] thrown = start();
        BootException e = assertInstanceOf(BootException.class, thrown[0], () -> "rank 0: " + thrown[0]);
        assertTrue(e.getMessage().contains("lpf.engine.net.setupMillis = 300 ms"), e.getMessage());
        assertEquals(1, e.missingRanks().length, e.getMessage());
        assertEquals(1, e.missingRanks()[0], e.getMessage());
    }

    /** Rank 0 starts at once, rank 1 {@link #LATE_MILLIS} later; @return what each threw (null: started) */
    private static Throwable[] start() throws Exception {
        int p = 2;
        byte[] key = Handshake.newKey();
        Throwable[] thrown = new Throwable[p];
        String agreement = Rendezvous.agreement(NetParameters.PROTOCOL.resolve());
        try (TcpCoordinator boot = new TcpCoordinator(new InetSocketAddress("127.0.0.1", 0), p, key, 1 << 20, System.getLogger("test"))) {
            Thread[] threads = new Thread[p];
            for (int r = 0; r < p; r++) {
                int rank = r;
                threads[r] = Thread.ofPlatform().start(() -> {
                    try {
                        if (rank == 1) Thread.sleep(LATE_MILLIS); // the late JVM: the test's stimulus, not a wait for an event
                        Mesh mesh = StartupCountsTest.meshOverTcpBoot(boot, key, rank, p, agreement);
                        try (mesh) {
                            Rendezvous.join(mesh);
                        }
                    } catch (Throwable t) {
                        thrown[rank] = t;
                    }
                });
            }
            for (Thread t : threads) t.join(50_000);
        }
        return thrown;
    }
}
