package org.lpf4j.bench.programs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Lpf;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProgramBenchTest {

    @Test
    void everyProgramAndPeerIsTimedAndChecked() {
        int[] procs = {1, 2, 3};
        List<String> cells = new ArrayList<>();
        List<ProgramResult> results = ProgramBench.run(Lpf.root(), Programs.quick(), procs, 0, 1, cells::add);
        assertEquals(4, results.size());
        assertEquals(4 * procs.length, cells.size(), "one cell (lpf4j alternating with its peer) per program and p: " + cells);
        for (ProgramResult r : results) {
            assertArrayEquals(procs, r.procs());
            for (int c = 0; c < procs.length; c++) {
                assertTrue(r.lpf()[c] > 0 && Double.isFinite(r.lpf()[c]), r.name());
                assertTrue(r.peer()[c] > 0 && Double.isFinite(r.peer()[c]), r.name());
                assertTrue(r.summaries()[c] != null && r.summaries()[c].contains(procs[c] + " "), r.summaries()[c]);
            }
            assertEquals(1.0, r.speedUp(r.lpf())[0]);
            assertEquals(r.lpf()[1] / r.peer()[1], r.ratio()[1]);
        }
    }

    @Test
    void peersNoticeAWrongResult() {
        for (ProgramCase pc : Programs.quick()) {
            try (Peer peer = pc.peer(2)) {
                peer.reset();
                // not run: the input is not its own sort, product, transform or ranks
                if (pc.name().equals("matrix multiply") || pc.name().equals("PageRank") || pc.name().equals("FFT")
                        || pc.name().equals("sample sort")) {
                    assertThrows(IllegalStateException.class, peer::check, pc.name());
                }
                peer.run();
                peer.check();
            }
        }
    }

    @Test
    void medianAndArguments() {
        assertEquals(2.0, ProgramResult.median(new double[] {3, 1, 2}));
        assertEquals(2.5, ProgramResult.median(new double[] {4, 1, 2, 3}));
        assertArrayEquals(new int[] {1, 2, 4}, ProgramBench.distinctSorted(new int[] {4, 2, 1, 2}));
        assertThrows(IllegalArgumentException.class,
                () -> ProgramBench.run(Lpf.root(), Programs.quick(), new int[] {1}, 0, 0, s -> { }));
    }
}
