package org.lpf4j.engine.hybrid;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** When node JVMs sharing a host split its CPUs ({@link NodeCpus#shouldBind}). */
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
            2; 2;  1; 2; false; the launcher bound this JVM to 1 of 2 CPUs
            2; 4;  4; 8; false; a cpuset of 4 of 8 CPUs
            2; 2; -1; 2; false; allowed CPUs unknown
            2; 2; -1; -1; false; nothing known
            """)
    void splitsOnlyWhenEveryNodeGetsCpusOfItsOwnAndTheThreadsOutnumberThem(int nodes, int threads, int allowed,
                                                                          int online, boolean bind, String why) {
        assertEquals(bind, NodeCpus.shouldBind(nodes, threads, allowed, online), why);
    }
}
