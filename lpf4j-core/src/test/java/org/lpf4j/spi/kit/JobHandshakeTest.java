package org.lpf4j.spi.kit;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared job-key handshake's proofs: each protocol's HELLO and WELCOME proofs are the HMACs
 * of exactly the byte layouts its wire format has always had (so a boot or net engine of this
 * version interoperates with one of the last), a proof passes only for the key, the protocol and
 * the parts it was made for, and nonces are fresh.
 */
class JobHandshakeTest {
    private static final byte[] KEY = "the job's key".getBytes(StandardCharsets.US_ASCII);
    private static final JobHandshake BOOT = new JobHandshake("lpf4j-boot", JobHandshake.Order.CLAIMS_BETWEEN_NONCES);
    private static final JobHandshake NET = new JobHandshake("lpf4j-net", JobHandshake.Order.CLAIMS_AFTER_NONCES);

    @Test
    void theProofsAreTheHmacsOfEachProtocolsLayout() {
        byte[] sn = JobHandshake.nonce(), cn = JobHandshake.nonce();
        byte[] rankSize = ByteBuffer.allocate(8).putInt(3).putInt(5).array();
        assertArrayEquals(JobKeys.mac(KEY, "lpf4j-boot hello", sn, rankSize, cn), BOOT.hello(KEY, sn, cn, JobHandshake.claims(3, 5)));
        assertArrayEquals(JobKeys.mac(KEY, "lpf4j-boot welcome", cn, sn), BOOT.welcome(KEY, cn, sn, new byte[0]));
        byte[] jobRankSize = ByteBuffer.allocate(16).putLong(0x1234_5678_9abcL).putInt(3).putInt(5).array();
        assertArrayEquals(JobKeys.mac(KEY, "lpf4j-net hello", sn, cn, jobRankSize),
                NET.hello(KEY, sn, cn, JobHandshake.claims(0x1234_5678_9abcL, 3, 5)));
        assertArrayEquals(JobKeys.mac(KEY, "lpf4j-net welcome", cn, sn, ByteBuffer.allocate(4).putInt(2).array()),
                NET.welcome(KEY, cn, sn, JobHandshake.claims(2)));
        assertEquals(JobHandshake.PROOF, NET.hello(KEY, sn, cn, new byte[0]).length);
    }

    @Test
    void aProofPassesOnlyForItsKeyProtocolAndParts() {
        byte[] sn = JobHandshake.nonce(), cn = JobHandshake.nonce(), claims = JobHandshake.claims(1, 2);
        byte[] hello = NET.hello(KEY, sn, cn, claims);
        assertTrue(NET.provesHello(hello, KEY, sn, cn, claims));
        assertFalse(NET.provesHello(hello, "another key".getBytes(StandardCharsets.US_ASCII), sn, cn, claims));
        assertFalse(BOOT.provesHello(hello, KEY, sn, cn, claims), "a net proof never passes for the boot");
        assertFalse(NET.provesHello(hello, KEY, cn, sn, claims), "nonces swapped");
        assertFalse(NET.provesHello(hello, KEY, sn, cn, JobHandshake.claims(1, 3)), "other claims");
        byte[] welcome = NET.welcome(KEY, cn, sn, JobHandshake.claims(0));
        assertTrue(NET.provesWelcome(welcome, KEY, cn, sn, JobHandshake.claims(0)));
        assertFalse(NET.provesWelcome(welcome, KEY, cn, sn, JobHandshake.claims(1)), "another acceptor");
        assertFalse(NET.provesHello(welcome, KEY, cn, sn, JobHandshake.claims(0)), "a welcome never passes for a hello");
    }

    @Test
    void noncesAreFreshAndClaimsTakeTheirTypesWidth() {
        assertEquals(JobHandshake.NONCE, JobHandshake.nonce().length);
        assertNotEquals(ByteBuffer.wrap(JobHandshake.nonce()), ByteBuffer.wrap(JobHandshake.nonce()));
        assertEquals(4 + 8 + 4, JobHandshake.claims(1, 2L, 3).length);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JobHandshake.claims(1.5));
        assertTrue(e.getMessage().contains("JobHandshake.claims") && e.getMessage().contains("Double"), e.getMessage());
    }
}
