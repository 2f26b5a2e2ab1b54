package org.lpf4j.spi.kit;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * How a connection proves that it belongs to a job without the job's key ever travelling: an
 * HMAC-SHA256 over a label and the challenge's parts, compared in constant time. For boot modules
 * and engines that listen on sockets (the tcp boot's rendezvous, the net engine's mesh). A call
 * to {@link #mac} costs one HMAC over its parts (a {@code Mac} instance each: not for hot paths).
 */
public final class JobKeys {
    private JobKeys() {}

    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * @param n the bytes
     * @return {@code n} random bytes from a {@link SecureRandom}: a key or a nonce
     */
    public static byte[] random(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    /**
     * @param key   the job's key
     * @param label what is being proved (e.g. {@code "lpf4j-net hello"}): a proof of one kind never
     *              passes for another
     * @param parts the challenge's parts, in order
     * @return HMAC-SHA256(key, label ‖ parts), 32 bytes
     */
    public static byte[] mac(byte[] key, String label, byte[]... parts) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(key, "HmacSHA256"));
            m.update(label.getBytes(StandardCharsets.US_ASCII));
            for (byte[] p : parts) m.update(p);
            return m.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable in this JDK", e);
        }
    }

    /** @return whether two proofs are equal, in time that does not depend on where they differ */
    public static boolean same(byte[] a, byte[] b) { return MessageDigest.isEqual(a, b); }
}
