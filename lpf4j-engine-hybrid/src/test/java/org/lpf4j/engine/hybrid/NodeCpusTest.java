package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** When node JVMs sharing a host split its CPUs, and how ({@link NodeCpus}). */
class NodeCpusTest {
    @ParameterizedTest(name = "{5}")
    @CsvSource(delimiter = ';', textBlock = """
            2; 2;  2; 2; true;  threads outnumber the CPUs: 2 nodes x 2 threads on 2 CPUs
            2; 3;  4; 4; true;  2 x 3 on 4
            4; 2;  4; 4; true;  4 x 2 on 4: one CPU each
            2; 1;  2; 2; false; threads that fit: 2 x 1 on 2
            2; 4;  8; 8; false; threads that fit: 2 x 4 on 8
            1; 8;  2; 2; false; a node alone on its host
            3; 2;  2; 2; false; more nodes than CPUs: the shares would overlap
            2; 2;  3; 3; false; 3 CPUs do not split evenly between 2 nodes
            2; 2;  1; 2; false; the launcher bound this JVM to 1 of 2 CPUs
            2; 4;  4; 8; false; a cpuset of 4 of 8 CPUs
            2; 2;  0; 2; false; allowed CPUs unknown
            2; 2; -1; -1; false; nothing known
            """)
    void splitsOnlyWhenEveryNodeGetsAnEqualShareAndTheThreadsOutnumberTheCpus(int nodes, int threads, int allowed,
                                                                             int online, boolean bind, String why) {
        assertEquals(bind, NodeCpus.shouldBind(nodes, threads, allowed, online), why);
    }

    @Test
    void sharesAreEqualContiguousAndCoverEveryCpu() {
        int[] ordered = {0, 4, 1, 5, 2, 6, 3, 7};
        assertArrayEquals(new int[] {0, 4, 1, 5}, NodeCpus.shareOf(ordered, 0, 2));
        assertArrayEquals(new int[] {2, 6, 3, 7}, NodeCpus.shareOf(ordered, 1, 2));
        for (int n : new int[] {1, 2, 4, 8}) {
            int[] union = new int[0];
            for (int i = 0; i < n; i++) {
                int[] share = NodeCpus.shareOf(ordered, i, n);
                assertEquals(ordered.length / n, share.length);
                int[] grown = Arrays.copyOf(union, union.length + share.length);
                System.arraycopy(share, 0, grown, union.length, share.length);
                union = grown;
            }
            assertArrayEquals(ordered, union, n + " shares");
        }
    }

    /** On this machine: ordering keeps every CPU once, and a CPU's siblings (if any) right after the first of its core. */
    @Test
    void siblingOrderIsAPermutationOfTheCpus() {
        int[] cpus = {0, 1, 2, 3, 5, 7};
        int[] ordered = NodeCpus.siblingsTogether(cpus);
        int[] sorted = ordered.clone();
        Arrays.sort(sorted);
        assertArrayEquals(cpus, sorted);
    }
}
