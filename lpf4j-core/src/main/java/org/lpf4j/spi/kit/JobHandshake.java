package org.lpf4j.spi.kit;

import java.nio.ByteBuffer;

/**
 * The mutual job-key handshake that every lpf4j protocol listening on a socket runs before it
 * accepts a byte (the tcp boot's rendezvous, the net engine's mesh): both sides prove that they
 * hold the job's key, which never travels, over fresh nonces from both, so that no proof can be
 * replayed.
 *
 * <pre>
 * acceptor  → connector  CHALLENGE: sn (a nonce)
 * connector → acceptor   HELLO:     its claims (who it is), cn (a nonce), HMAC(key, name " hello" ‖ parts)
 * acceptor  → connector  WELCOME:   HMAC(key, name " welcome" ‖ cn ‖ sn ‖ the acceptor's claims)
 * </pre>
 *
 * The HELLO proof's parts are sn, cn and the connector's claims in the order the protocol fixed
 * ({@link Order}). Each protocol keeps its own framing, version and checks of the claims; this
 * class is the nonces and the proofs, what each side computes and checks. Immutable. Each proof
 * costs one HMAC-SHA256 ({@link JobKeys#mac}).
 */
public final class JobHandshake {
    /** Bytes of a nonce and of a proof. */
    public static final int NONCE = 32, PROOF = 32;

    /** Where a protocol's HELLO proof puts the connector's claims among the two nonces. */
    public enum Order {
        /** sn ‖ claims ‖ cn (the tcp boot's rendezvous) */
        CLAIMS_BETWEEN_NONCES,
        /** sn ‖ cn ‖ claims (the net engine's mesh) */
        CLAIMS_AFTER_NONCES
    }

    private final String helloLabel, welcomeLabel;
    private final Order order;

    /**
     * @param name  the protocol's name in its proofs (e.g. {@code "lpf4j-net"}): a proof for one
     *              protocol never passes for another
     * @param order where its HELLO proof puts the claims
     */
    public JobHandshake(String name, Order order) {
        this.helloLabel = name + " hello";
        this.welcomeLabel = name + " welcome";
        this.order = order;
    }

    /** @return a fresh nonce ({@link #NONCE} bytes from the one {@link JobKeys#random} source) */
    public static byte[] nonce() { return JobKeys.random(NONCE); }

    /**
     * The connector's proof in its HELLO.
     *
     * @param key    the job key
     * @param sn     the acceptor's nonce from the CHALLENGE
     * @param cn     the connector's nonce
     * @param claims the connector's claims as they are proved (see {@link #claims})
     * @return the proof, {@link #PROOF} bytes
     */
    public byte[] hello(byte[] key, byte[] sn, byte[] cn, byte[] claims) {
        return order == Order.CLAIMS_BETWEEN_NONCES ? JobKeys.mac(key, helloLabel, sn, claims, cn)
                : JobKeys.mac(key, helloLabel, sn, cn, claims);
    }

    /** @return whether {@code proof} is the connector's HELLO proof of these parts (constant time) */
    public boolean provesHello(byte[] proof, byte[] key, byte[] sn, byte[] cn, byte[] claims) {
        return JobKeys.same(hello(key, sn, cn, claims), proof);
    }

    /**
     * The acceptor's proof in its WELCOME.
     *
     * @param claims the acceptor's claims as they are proved (empty: none)
     * @return the proof, {@link #PROOF} bytes
     */
    public byte[] welcome(byte[] key, byte[] cn, byte[] sn, byte[] claims) {
        return JobKeys.mac(key, welcomeLabel, cn, sn, claims);
    }

    /** @return whether {@code proof} is the acceptor's WELCOME proof of these parts (constant time) */
    public boolean provesWelcome(byte[] proof, byte[] key, byte[] cn, byte[] sn, byte[] claims) {
        return JobKeys.same(proof, welcome(key, cn, sn, claims));
    }

    /**
     * @param values numbers as a protocol proves them
     * @return their big-endian bytes, each as wide as its type (an {@code Integer} 4, a {@code Long} 8)
     */
    public static byte[] claims(Number... values) {
        int bytes = 0;
        for (Number v : values) bytes += v instanceof Long ? 8 : 4;
        ByteBuffer b = ByteBuffer.allocate(bytes);
        for (Number v : values) {
            if (v instanceof Long l) b.putLong(l);
            else if (v instanceof Integer i) b.putInt(i);
            else throw new IllegalArgumentException("JobHandshake.claims: " + v.getClass().getName() + " is neither Integer nor Long");
        }
        return b.array();
    }
}
