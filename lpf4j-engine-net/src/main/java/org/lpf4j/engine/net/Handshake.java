package org.lpf4j.engine.net;

import org.lpf4j.spi.kit.JobHandshake;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

/**
 * How two processes of a mesh prove to each other that they belong to the job, before a byte of
 * data is accepted: a mutual HMAC-SHA256 challenge over the job key, which the handshake never
 * sends. (How the processes got the key is the boot's affair: a host such as Spark hands it to
 * every member; under a boot exchange without one, rank 0 makes it and publishes it through the
 * exchange, in clear on the tcp boot's connections, which bind to loopback unless told otherwise.)
 *
 * <pre>
 * acceptor  → connector  CHALLENGE: magic, version, nonce sn (32 bytes)
 * connector → acceptor   HELLO:     magic, version, job id, rank, size, intent, nonce cn,
 *                                   HMAC(key, "lpf4j-net hello" ‖ sn ‖ cn ‖ job id ‖ rank ‖ size ‖ intent)
 * acceptor  → connector  WELCOME:   role,
 *                                   HMAC(key, "lpf4j-net welcome" ‖ cn ‖ sn ‖ acceptor's rank ‖ role)
 * </pre>
 * The intent is the role the connector dials the connection for ({@link #MAIN} or {@link #LARGE});
 * the role is the one the acceptor gives it, which both then use: connections are made on first
 * use by either side, and when both sides of a pair dial their main connection at once the
 * acceptor's answer settles which one is which ({@link Connections}).
 * Every message has a fixed length, so an unauthenticated peer can make the acceptor read at most
 * {@link #HELLO_BYTES} bytes; a wrong magic, version, job, rank, size or MAC closes the connection
 * at once. Blocking calls bounded by the socket's timeout (the caller sets it). The locality
 * exchange ({@link LocalPeers}) follows on every connection. The nonces and
 * proofs are {@link JobHandshake}'s (shared with the tcp boot, whose framing differs); this class
 * is the net engine's framing and checks.
 */
final class Handshake {
    private Handshake() {}

    static final int MAGIC = 0x4C50464E; // "LPFN"
    static final int VERSION = 4; // 2: a connection per direction; 3: the roles, for connections made on first use; 4: the locality exchange after it
    /** A pair's main connection: every frame both ways except the higher rank's large payloads. */
    static final int MAIN = 0;
    /** The higher rank's connection for its large payloads only. */
    static final int LARGE = 1;
    static final int NONCE = JobHandshake.NONCE, MAC = JobHandshake.PROOF;
    private static final JobHandshake PROOFS = new JobHandshake("lpf4j-net", JobHandshake.Order.CLAIMS_AFTER_NONCES);
    static final int CHALLENGE_BYTES = 4 + 4 + NONCE;
    static final int HELLO_BYTES = 4 + 4 + 8 + 4 + 4 + 4 + NONCE + MAC;
    static final int WELCOME_BYTES = 4 + MAC;

    /** A refused handshake: the connection is closed and the reason logged by the acceptor. */
    static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        Refused(String message) { super(message); }
    }

    /**
     * The connector's handshake failed after its HELLO went out by a timeout: the acceptor may have
     * taken the connection and given it a role, so dialling again could make a second connection of
     * the same role (the connector gives up instead).
     */
    static final class Unsettled extends IOException {
        private static final long serialVersionUID = 1L;

        Unsettled(String message, IOException cause) { super(message, cause); }
    }

    /** Who connected: its rank in the mesh, and the role the acceptor gave the connection. */
    record Peer(int rank, int role) {}

    /** The acceptor's choice of a connection's role, once the connector has proved the key. */
    interface Roles {
        /**
         * @param rank   the connector's rank
         * @param intent the role it dialled the connection for
         * @return the connection's role
         * @throws Refused if the connection has no place in the mesh
         */
        int role(int rank, int intent) throws Refused;

        /** The role given could not be told to the connector (its connection broke): the choice is undone. */
        default void withdraw(int rank, int role) {}
    }

    /**
     * The acceptor's side.
     *
     * @param ch    a connection just accepted, in blocking mode with a read timeout
     * @param key   the job key
     * @param jobId the job's id (both sides must agree)
     * @param me    this process's rank
     * @param size  the mesh's size
     * @param roles the role the connection takes
     * @return the connector's rank and the connection's role
     * @throws Refused if the connector does not prove the key or does not belong to this job
     */
    static Peer accept(SocketChannel ch, byte[] key, long jobId, int me, int size, Roles roles) throws IOException {
        return accept(readHello(ch, Long.MAX_VALUE), ch, key, jobId, me, size, roles);
    }

    /** A connector's HELLO as it came, and the nonce of the challenge it answers. */
    record Hello(byte[] nonce, ByteBuffer bytes) {}

    /**
     * The acceptor's first half, which costs it nothing but the wait: sends the challenge and
     * reads the connector's HELLO, all of it by {@code deadlineNanos}.
     *
     * @param deadlineNanos when to give up ({@link System#nanoTime}); {@link Long#MAX_VALUE}: the socket's read timeout per read
     */
    static Hello readHello(SocketChannel ch, long deadlineNanos) throws IOException {
        byte[] sn = nonce();
        ByteBuffer challenge = ByteBuffer.allocate(CHALLENGE_BYTES).order(ByteOrder.BIG_ENDIAN);
        challenge.putInt(MAGIC).putInt(VERSION).put(sn).flip();
        Io.writeFully(ch, challenge);
        return new Hello(sn, Io.readFully(ch, HELLO_BYTES, deadlineNanos));
    }

    /** The acceptor's second half: checks the HELLO {@link #readHello} read, takes the role and welcomes the connector. */
    static Peer accept(Hello h, SocketChannel ch, byte[] key, long jobId, int me, int size, Roles roles) throws IOException {
        byte[] sn = h.nonce();
        ByteBuffer hello = h.bytes();
        if (hello.getInt() != MAGIC) throw new Refused("not an lpf4j net connection (bad magic)");
        int version = hello.getInt();
        if (version != VERSION) throw new Refused("protocol version " + version + " (this process: " + VERSION + ")");
        long job = hello.getLong();
        int rank = hello.getInt(), theirSize = hello.getInt(), intent = hello.getInt();
        byte[] cn = new byte[NONCE], mac = new byte[MAC];
        hello.get(cn).get(mac);
        if (!PROOFS.provesHello(mac, key, sn, cn, JobHandshake.claims(job, rank, theirSize, intent))) {
            throw new Refused("the connection does not prove the job key");
        }
        if (job != jobId) throw new Refused("it belongs to job " + Long.toHexString(job) + ", not " + Long.toHexString(jobId));
        if (theirSize != size || rank < 0 || rank >= size || rank == me) {
            throw new Refused("rank " + rank + " of " + theirSize + " does not fit this mesh (rank " + me + " of " + size + ")");
        }
        if (intent != MAIN && intent != LARGE) throw new Refused("rank " + rank + " asks for role " + intent);
        int role = roles.role(rank, intent);
        ByteBuffer welcome = ByteBuffer.allocate(WELCOME_BYTES).order(ByteOrder.BIG_ENDIAN);
        welcome.putInt(role).put(PROOFS.welcome(key, cn, sn, JobHandshake.claims(me, role))).flip();
        try {
            Io.writeFully(ch, welcome);
        } catch (IOException e) {
            roles.withdraw(rank, role);
            throw e;
        }
        return new Peer(rank, role);
    }

    /**
     * The connector's side.
     *
     * @param ch    a connection just made to rank {@code to}, in blocking mode with a read timeout
     * @param key   the job key
     * @param jobId the job's id
     * @param me    this process's rank
     * @param size  the mesh's size
     * @param to    the acceptor's rank
     * @throws Refused if the acceptor does not prove the key
     */
    static void connect(SocketChannel ch, byte[] key, long jobId, int me, int size, int to) throws IOException {
        connect(ch, key, jobId, me, size, to, MAIN);
    }

    /**
     * The connector's side, dialling for a role.
     *
     * @param intent the role this process dials the connection for ({@link #MAIN} or {@link #LARGE})
     * @return the role the acceptor gave it
     * @throws Refused if the acceptor does not prove the key
     */
    static int connect(SocketChannel ch, byte[] key, long jobId, int me, int size, int to, int intent) throws IOException {
        ByteBuffer challenge = Io.readFully(ch, CHALLENGE_BYTES);
        if (challenge.getInt() != MAGIC) throw new Refused("rank " + to + " did not answer as an lpf4j net process");
        int version = challenge.getInt();
        if (version != VERSION) throw new Refused("rank " + to + " speaks version " + version + " (this process: " + VERSION + ")");
        byte[] sn = new byte[NONCE];
        challenge.get(sn);
        byte[] cn = nonce();
        ByteBuffer hello = ByteBuffer.allocate(HELLO_BYTES).order(ByteOrder.BIG_ENDIAN);
        hello.putInt(MAGIC).putInt(VERSION).putLong(jobId).putInt(me).putInt(size).putInt(intent).put(cn)
                .put(PROOFS.hello(key, sn, cn, JobHandshake.claims(jobId, me, size, intent))).flip();
        Io.writeFully(ch, hello);
        byte[] welcome = new byte[MAC];
        ByteBuffer answer;
        try {
            answer = Io.readFully(ch, WELCOME_BYTES);
        } catch (java.net.SocketTimeoutException e) {
            throw new Unsettled("rank " + to + " did not answer its HELLO in time", e);
        }
        int role = answer.getInt();
        answer.get(welcome);
        if (!PROOFS.provesWelcome(welcome, key, cn, sn, JobHandshake.claims(to, role))) {
            throw new Refused("rank " + to + " does not prove the job key");
        }
        if (role != MAIN && role != LARGE) throw new Refused("rank " + to + " gave the connection role " + role);
        return role;
    }

    /** @return 32 random bytes: a fresh job key */
    static byte[] newKey() { return nonce(); }

    private static byte[] nonce() { return JobHandshake.nonce(); }
}
