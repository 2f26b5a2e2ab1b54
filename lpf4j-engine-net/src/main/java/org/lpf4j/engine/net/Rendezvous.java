package org.lpf4j.engine.net;

import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.boot.FenceOptions;
import org.lpf4j.spi.kit.JobKeys;
import org.lpf4j.superstep.ProtocolSettings;
import org.lpf4j.superstep.StartupAgreement;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How the members of a boot session become a {@link Mesh}: each binds a listening socket, and in
 * one collect-data fence publishes its address and its start-up agreement (the modules chosen,
 * the protocol's settings); the job's secret (key and job id) is either one every member was given
 * from outside (a host framework's closure) or one rank 0 makes and publishes in the same fence.
 * Then the mesh starts with no connection: they are made on first use, every one proving the key,
 * and the listening socket stays open (the mesh's) until the mesh closes. A barrier over the
 * mesh ({@link Mesh#join}) ends the start: the connections a sync's rounds need, no others.
 */
final class Rendezvous {
    private Rendezvous() {}

    /** The bytes of a job secret: the key, then the job id. */
    static final int SECRET_BYTES = Handshake.NONCE + 8;
    private static final Duration GET_WAIT = Duration.ofSeconds(30);

    /** @return a fresh random secret: {@link Handshake#NONCE} key bytes, then a job id */
    static byte[] newSecret() {
        return JobKeys.random(SECRET_BYTES);
    }

    /** @return the text every member of a job must publish alike: the modules chosen and the protocol's settings */
    static String agreement(ProtocolSettings protocol) {
        return StartupAgreement.text(NetParameters.PROTOCOL.agreementText(protocol) + ", " + NetParameters.SYNC_TIMEOUT.key() + "="
                + NetParameters.SYNC_TIMEOUT.get(), null);
    }

    /**
     * Makes the session's members a mesh (collective over the session: one fence); connections are made on first use.
     *
     * @param session   the boot session, of more than one member
     * @param agreement this member's {@link #agreement}
     * @param bindHost  the address to listen on (the wildcard address advertises this host's address)
     * @param secret    the job's secret ({@link #SECRET_BYTES}) given to every member alike, or null:
     *                  rank 0 makes one and publishes it in the fence
     * @return the mesh, which owns the listening socket
     * @throws IOException           if the members cannot connect
     * @throws IllegalStateException if the members disagree on modules or settings
     */
    static Mesh connect(BootSession session, String agreement, InetAddress bindHost, byte[] secret) throws IOException {
        return join(exchange(session, agreement, bindHost, secret));
    }

    /**
     * The start's barrier over the mesh ({@link Mesh#join}); closes the mesh if it fails.
     *
     * @param mesh the mesh {@link #exchange} made
     * @return it
     * @throws IOException naming a process not heard from in time, or one that died
     */
    static Mesh join(Mesh mesh) throws IOException {
        try {
            mesh.join(NetParameters.SETUP_MILLIS.get());
        } catch (IOException | RuntimeException e) {
            mesh.close();
            throw e;
        }
        return mesh;
    }

    /**
     * {@link #connect} without the barrier: the boot session's one fence, then the mesh, unjoined.
     * The session is not used afterwards, so a caller that owns it may close it before the
     * barrier: a boot module whose rank 0 serves the others (tcp) then waits for them to leave
     * the boot before rank 0's mesh has to make progress, not while the others wait for it.
     */
    static Mesh exchange(BootSession session, String agreement, InetAddress bindHost, byte[] secret) throws IOException {
        int r = session.rank(), n = session.size();
        if (secret != null && secret.length != SECRET_BYTES) {
            throw new IllegalArgumentException("the job secret has " + secret.length + " bytes, not " + SECRET_BYTES);
        }
        ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(bindHost, 0), n);
        try {
            InetSocketAddress mine = (InetSocketAddress) server.getLocalAddress();
            String advertised = mine.getAddress().isAnyLocalAddress() ? InetAddress.getLocalHost().getHostAddress()
                    : mine.getAddress().getHostAddress();
            session.put("lpf4j.net.address", (advertised + " " + mine.getPort()).getBytes(StandardCharsets.UTF_8));
            session.put("lpf4j.net.agreement", agreement.getBytes(StandardCharsets.UTF_8));
            if (secret == null && r == 0) session.put("lpf4j.net.key", newSecret());
            session.commit();
            // The JVMs of a job may start far apart (64 of them on a few cores take minutes): the start's
            // fence waits as long as the processes may take to meet, not the boot's default.
            int meet = NetParameters.SETUP_MILLIS.get();
            try {
                session.fence(FenceOptions.collect().timeout(Duration.ofMillis(meet)));
            } catch (BootException e) {
                throw new BootException(e.getMessage() + " (the processes may take " + NetParameters.SETUP_MILLIS.key()
                        + " = " + meet + " ms to meet at the start)", e.missingRanks(), e);
            }
            ByteBuffer s = ByteBuffer.wrap(secret != null ? secret : session.get(0, "lpf4j.net.key", GET_WAIT));
            byte[] key = new byte[Handshake.NONCE];
            s.get(key);
            long job = s.getLong();
            List<InetSocketAddress> all = new ArrayList<>();
            List<String> agreements = new ArrayList<>();
            for (int q = 0; q < n; q++) {
                String[] a = new String(session.get(q, "lpf4j.net.address", GET_WAIT), StandardCharsets.UTF_8).split(" ");
                all.add(new InetSocketAddress(InetAddress.getByName(a[0]), Integer.parseInt(a[1])));
                agreements.add(new String(session.get(q, "lpf4j.net.agreement", GET_WAIT), StandardCharsets.UTF_8));
            }
            StartupAgreement.check(agreements, "net job", "libraries");
            return Mesh.connect(r, n, key, job, server, all, NetParameters.SETUP_MILLIS.get(), NetParameters.SPIN_MICROS.get() * 1_000L,
                    NetParameters.SYNC_TIMEOUT.get() * 1_000_000L, System.err::println);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }
}
