package org.lpf4j.engine.net;

import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;
import org.lpf4j.spi.boot.BootSession;

import java.io.IOException;
import java.net.InetAddress;
import java.util.Objects;

/**
 * A section of the net engine whose processes a host framework started, not lpf: the tasks of a
 * Spark barrier stage, say, several of which may share a JVM. Each member calls {@link #run} on
 * its own thread with its own boot session (rank and size, and a PMIx-style exchange the host
 * provides); they connect a mesh of their own, run the SPMD function as pids {@code 0 .. size - 1}
 * (pid = the session's rank), and close the mesh before {@code run} returns. Unlike the engine's
 * runtime ({@code Lpf.root()} under {@code lpf run --engine net}), nothing is shipped and nothing
 * outlives the call: every member already holds the function.
 *
 * <p><b>Security.</b> Every connection proves the job's secret, which the host hands every member
 * alike (Spark: in the task closure, made by the driver with {@link #newSecret}); it never travels
 * through the boot exchange. The members listen on the address given while the section lives
 * (connections are made on first use), and refuse connections that do not prove the secret.
 *
 * <p><b>Cost.</b> One boot fence (whatever the host's exchange costs: about 1 s with Spark's
 * {@code allGather}), then two TCP connections per pair of members with a handshake each; the
 * section itself costs what any net engine section does. The engine's parameters
 * ({@code lpf.engine.net.*}) apply, read when {@code run} starts.
 */
public final class HostedSection {
    private HostedSection() {}

    /** @return a fresh random job secret, to hand every member of one section alike */
    public static byte[] newSecret() { return Rendezvous.newSecret(); }

    /**
     * Runs {@code spmd} as this member's process of a section over all members of {@code session}.
     * Collective over the session's members; blocks until this process's part of the section ended.
     *
     * @param session   this member's boot session (its rank is the pid); not closed here
     * @param bind      the address to listen on while the mesh connects (this host's address the
     *                  others reach it by; loopback for one host)
     * @param secret    the job's secret from {@link #newSecret}, the same at every member; a
     *                  different attempt of the same job needs a different one (e.g. see
     *                  {@link #forAttempt})
     * @param placement names where the job runs, for the probe's cache of machine figures (e.g.
     *                  {@code "spark/app-20261127-0001"})
     * @param spmd      the SPMD function
     * @throws FatalException if the members could not connect, or the section failed (any
     *                        process threw, returned early, or was lost): at every process that
     *                        saw it, with the causes the section carried to this process
     */
    public static void run(BootSession session, InetAddress bind, byte[] secret, String placement, Spmd spmd) {
        run(session, bind, secret, placement, spmd, Args.NONE);
    }

    /**
     * {@link #run(BootSession, InetAddress, byte[], String, Spmd)} with arguments: pid 0 gets
     * {@code args}, the others its input-less, output-less copy (as on {@code exec}).
     */
    public static void run(BootSession session, InetAddress bind, byte[] secret, String placement, Spmd spmd, Args args) {
        Objects.requireNonNull(args, "HostedSection.run: args");
        Objects.requireNonNull(session, "HostedSection.run: session");
        Objects.requireNonNull(bind, "HostedSection.run: bind");
        Objects.requireNonNull(secret, "HostedSection.run: secret");
        Objects.requireNonNull(placement, "HostedSection.run: placement");
        Objects.requireNonNull(spmd, "HostedSection.run: spmd");
        if (secret.length != Rendezvous.SECRET_BYTES) {
            throw new IllegalArgumentException("HostedSection.run: the secret has " + secret.length + " bytes, not "
                    + Rendezvous.SECRET_BYTES + " (make it with HostedSection.newSecret())");
        }
        int n = session.size(), rank = session.rank();
        String call = "hosted section (pid " + rank + " of " + n + ")";
        NetSections sections = new NetSections(NetParameters.PROTOCOL.resolve(), "net/" + placement + "/" + n,
                NetParameters.PROBE_MILLIS.get() * 1_000_000L);
        Mesh mesh = null;
        if (bootFences(n) > 0) { // Rendezvous.connect: one fence
            try {
                mesh = Rendezvous.connect(session, Rendezvous.agreement(sections.protocol()), bind, secret.clone());
            } catch (IOException | RuntimeException e) {
                throw new FatalException(call + ": the section's processes could not connect (boot module "
                        + session.module() + "): " + e.getMessage(), e);
            }
        }
        try (Mesh m = mesh) {
            FatalException f = sections.run(m, m == null ? 0 : m.nextSection(), n, spmd, rank == 0 ? args : args.withoutIo(), call, 1);
            if (f != null) throw f;
        }
    }

    /**
     * @param members the section's members
     * @return the boot fences {@link #run} takes part in: one for a section of several members, none
     *         for one member (a host whose fences need other threads to join, as a Spark barrier's
     *         do, knows from this how many to join)
     */
    public static int bootFences(int members) { return members > 1 ? 1 : 0; }

    /**
     * @param secret  a job's secret
     * @param attempt the attempt's number (0, 1, ...)
     * @return the secret of that attempt of the job: the same key, a job id of its own, so that a
     *         process left over from one attempt can never join another's mesh
     */
    public static byte[] forAttempt(byte[] secret, int attempt) {
        if (secret.length != Rendezvous.SECRET_BYTES) {
            throw new IllegalArgumentException("HostedSection.forAttempt: the secret has " + secret.length + " bytes, not "
                    + Rendezvous.SECRET_BYTES);
        }
        byte[] s = secret.clone();
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(s);
        b.putLong(Handshake.NONCE, b.getLong(Handshake.NONCE) + 0x9E3779B97F4A7C15L * (attempt + 1L));
        return s;
    }
}
