package org.lpf4j.engine.mpi;

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
        assertEquals(0, MpiContext.degreeBit(0));
        assertEquals(0, MpiContext.maxDegree(MpiContext.HAS_MESSAGES | MpiContext.IN_SYNC), "the flags are not a degree");
        for (int d = 1; d < 5000; d++) {
            int bound = MpiContext.maxDegree(MpiContext.degreeBit(d) | MpiContext.IN_SYNC | MpiContext.HAS_MESSAGES);
            assertTrue(bound >= d && bound < 2 * d, "degree " + d + ": bound " + bound);
        }
        long all = MpiContext.degreeBit(1) | MpiContext.degreeBit(7) | MpiContext.degreeBit(3);
        assertEquals(7, MpiContext.maxDegree(all));
        assertEquals(15, MpiContext.maxDegree(all | MpiContext.degreeBit(8)));
        assertTrue((MpiContext.degreeBit(Integer.MAX_VALUE) & (MpiContext.ENDING | MpiContext.IN_REHOOK)) == 0);
    }

    @Test
    void autoIsSparseWhenEveryProcessSendsToAtMostAQuarterInALargeEnoughSection() {
        MpiSettings auto = new MpiSettings(4, 1, "auto", 8, 0);
        assertTrue(auto.sparse(8, 1), "a ring at p = 8");
        assertTrue(auto.sparse(16, 3));
        assertFalse(auto.sparse(16, 7), "a bound of 7 of 16");
        assertFalse(auto.sparse(8, 7), "a total exchange");
        assertFalse(auto.sparse(5, 1), "a section below sparseFrom");
        assertFalse(new MpiSettings(4, 1, "auto", 64, 0).sparse(16, 1));
        assertTrue(new MpiSettings(4, 1, "sparse", 64, 0).sparse(8, 7));
        assertFalse(new MpiSettings(4, 1, "dense", 1, 0).sparse(8, 1));
    }
}
