package org.lpf4j.superstep;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a sync above pairsInRoundUpTo chooses the way its counts travel: each process ORs a bound
 * on its out-degree into the round's word, so every process reads the same bound on the largest
 * out-degree and makes the same choice.
 */
class CountExchangeRuleTest {
    @Test
    void theRoundsOrBoundsTheLargestOutDegreeWithinAFactorOfTwo() {
        assertEquals(0, Round.degreeBit(0));
        assertEquals(0, Round.maxDegree(Round.HAS_MESSAGES | Round.IN_SYNC), "the flags are not a degree");
        for (int d = 1; d < 5000; d++) {
            int bound = Round.maxDegree(Round.degreeBit(d) | Round.IN_SYNC | Round.HAS_MESSAGES);
            assertTrue(bound >= d && bound < 2 * d, "degree " + d + ": bound " + bound);
        }
        long all = Round.degreeBit(1) | Round.degreeBit(7) | Round.degreeBit(3);
        assertEquals(7, Round.maxDegree(all));
        assertEquals(15, Round.maxDegree(all | Round.degreeBit(8)));
        assertTrue((Round.degreeBit(Integer.MAX_VALUE) & (Round.ENDING | Round.IN_REHOOK)) == 0);
    }

    @Test
    void autoIsSparseWhenEveryProcessSendsToAtMostAQuarterInALargeEnoughSection() {
        ProtocolSettings auto = new ProtocolSettings(4, "auto", 8, null);
        assertTrue(auto.sparse(8, 1), "a ring at p = 8");
        assertTrue(auto.sparse(16, 3));
        assertFalse(auto.sparse(16, 7), "a bound of 7 of 16");
        assertFalse(auto.sparse(8, 7), "a total exchange");
        assertFalse(auto.sparse(5, 1), "a section below sparseFrom");
        assertFalse(new ProtocolSettings(4, "auto", 64, null).sparse(16, 1));
        assertTrue(new ProtocolSettings(4, "sparse", 64, null).sparse(8, 7));
        assertFalse(new ProtocolSettings(4, "dense", 1, null).sparse(8, 1));
    }
}
