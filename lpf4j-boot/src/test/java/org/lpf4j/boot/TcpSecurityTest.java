package org.lpf4j.boot;

import org.lpf4j.boot.tcp.TcpCoordinator;
import org.lpf4j.boot.tcp.TcpSession;
import org.lpf4j.boot.tcp.TcpSettings;
import org.lpf4j.spi.boot.BootException;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Job membership is proven with the job key; rogue connections are refused and logged and do not
 * disturb the job. The coordinator runs in this JVM (as {@code lpf boot-test}'s does), the job's
 * ranks in separate JVMs.
 */
class TcpSecurityTest {
    private static final int MAX_FRAME = 64 << 20;

    /** Reads the coordinator's CHALLENGE (length, type 1, version 2, 32-byte nonce) and returns the nonce. */
    private static byte[] challenge(DataInputStream in) throws IOException {
        int n = in.readInt();
        assertEquals(1 + 4 + 32, n);
        assertEquals(1, in.readByte());
        assertEquals(2, in.readInt()); // the protocol version (Wire.VERSION)
        byte[] nonce = new byte[32];
        in.readFully(nonce);
        return nonce;
    }

    /** @return true if the coordinator closed the connection (EOF) within 5 s */
    private static boolean closedByPeer(Socket s, DataInputStream in) throws IOException {
        s.setSoTimeout(5_000);
        try {
            while (in.read() >= 0) { /* drain */ }
            return true;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    private interface Rogue { void act(Socket s, DataOutputStream out) throws IOException; }

    private static void rogue(InetSocketAddress at, Rogue r) throws IOException {
        try (Socket s = new Socket(at.getAddress(), at.getPort())) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            challenge(in);
            r.act(s, out);
            out.flush();
            assertTrue(closedByPeer(s, in), "the coordinator closed the rogue connection");
        }
    }

    private static void hello(DataOutputStream out, int rank, int size, byte[] mac) throws IOException {
        out.writeInt(1 + 4 + 4 + 4 + 32 + 32);
        out.writeByte(2);
        out.writeInt(2); // the protocol version
        out.writeInt(rank);
        out.writeInt(size);
        out.write(new byte[32]);
        out.write(mac);
    }

    @Test
    void rogueClientsAreRefusedLoggedAndDoNotDisturbTheJob() throws Exception {
        RecordingLogger log = new RecordingLogger();
        String key = TcpJob.newKey();
        int p = 3;
        try (TcpCoordinator c = new TcpCoordinator(new InetSocketAddress("127.0.0.1", 0), p, key.getBytes(StandardCharsets.UTF_8),
                MAX_FRAME, log); Jvms jvms = new Jvms()) {
            InetSocketAddress at = c.address();
            // A client with the wrong key claims rank 1 before the real rank 1 starts.
            rogue(at, (s, out) -> hello(out, 1, p, new byte[32]));
            TcpJob.start(jvms, p, "127.0.0.1:" + at.getPort(), key, false, "rules");
            rogue(at, (s, out) -> { out.writeInt(0x7fff_fff0); out.writeByte(4); });            // oversize length
            rogue(at, (s, out) -> { out.writeInt(100); out.writeByte(2); out.write(new byte[10]); out.flush(); s.shutdownOutput(); }); // truncated
            rogue(at, (s, out) -> { out.writeInt(5); out.writeByte(99); out.writeInt(0); });     // unknown type
            rogue(at, (s, out) -> { out.writeInt(5); out.writeByte(4); out.writeInt(0); });      // COMMIT before HELLO
            jvms.awaitAll(120_000);
            for (int r = 0; r < p; r++) {
                assertEquals(0, jvms.process(r).exitValue(), jvms.outputs());
                assertTrue(jvms.output(r).contains("PASS rank " + r), jvms.outputs());
            }
            assertEquals(5, c.refusedConnections(), String.join("\n", log.lines));
            assertTrue(log.any("wrong job key"), String.join("\n", log.lines));
            assertTrue(log.any("frame length 2147483632 not in"), String.join("\n", log.lines));
            assertTrue(log.any("truncated frame"), String.join("\n", log.lines));
            assertTrue(log.any("expected HELLO, got message type 99"), String.join("\n", log.lines));
            assertTrue(log.any("expected HELLO, got message type 4"), String.join("\n", log.lines));
        }
    }

    @Test
    void aSessionWithTheWrongKeyIsRefused() throws Exception {
        RecordingLogger log = new RecordingLogger();
        try (TcpCoordinator c = new TcpCoordinator(new InetSocketAddress("127.0.0.1", 0), 2, "right".getBytes(StandardCharsets.UTF_8),
                MAX_FRAME, log)) {
            TcpSettings wrong = new TcpSettings(c.address(), "wrong".getBytes(StandardCharsets.UTF_8), 0, 2, false, "127.0.0.1",
                    5_000, MAX_FRAME);
            BootException e = assertThrows(BootException.class, () -> TcpSession.open(wrong));
            assertTrue(e.getMessage().contains("refused rank 0"), e.getMessage());
            assertTrue(log.any("wrong job key"), String.join("\n", log.lines));
            // the right key still gets in: the refused client took nothing
            TcpSettings right = new TcpSettings(c.address(), "right".getBytes(StandardCharsets.UTF_8), 0, 2, false, "127.0.0.1",
                    5_000, MAX_FRAME);
            try (TcpSession s = TcpSession.open(right)) {
                assertEquals(0, s.rank());
            }
        }
    }

    @Test
    void aMemberThatSendsGarbageIsReportedGoneAndTheOthersFenceNamesIt() throws Exception {
        RecordingLogger log = new RecordingLogger();
        byte[] key = "k".getBytes(StandardCharsets.UTF_8);
        try (TcpCoordinator c = new TcpCoordinator(new InetSocketAddress("127.0.0.1", 0), 2, key, MAX_FRAME, log);
             TcpSession good = TcpSession.open(new TcpSettings(c.address(), key, 0, 2, false, "127.0.0.1", 5_000, MAX_FRAME))) {
            // rank 1 authenticates properly, then sends an unknown message type
            try (Socket s = new Socket(c.address().getAddress(), c.address().getPort())) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                byte[] sn = challenge(in);
                byte[] cn = new byte[32];
                javax.crypto.Mac m = javax.crypto.Mac.getInstance("HmacSHA256");
                m.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
                m.update("lpf4j-boot hello".getBytes(StandardCharsets.US_ASCII));
                m.update(sn);
                m.update(java.nio.ByteBuffer.allocate(8).putInt(1).putInt(2).array());
                m.update(cn);
                hello(out, 1, 2, m.doFinal());
                out.flush();
                assertEquals(33, in.readInt()); // WELCOME
                out.writeInt(1);
                out.writeByte(42);
                out.flush();
                assertTrue(closedByPeer(s, in));
            }
            long t0 = System.nanoTime();
            BootException e = assertThrows(BootException.class,
                    () -> good.fence(org.lpf4j.spi.boot.FenceOptions.barrier().timeout(java.time.Duration.ofSeconds(10))));
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) < 5_000);
            assertEquals(1, e.missingRanks().length, e.getMessage());
            assertEquals(1, e.missingRanks()[0], e.getMessage());
            assertTrue(e.getMessage().contains("malformed"), e.getMessage());
            assertTrue(log.any("unknown message type 42"), String.join("\n", log.lines));
        }
    }
}
