package org.lpf4j.engine.threads.kit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link Cpus#bindToShare}: the shares partition the CPUs a thread may use, each bound thread keeps its share. */
@Timeout(60)
class CpusTest {
    /** @return the CPUs the calling thread may use, as the kernel reports them */
    static BitSet allowedList() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (!line.startsWith("Cpus_allowed_list:")) continue;
                BitSet cpus = new BitSet();
                for (String range : line.substring(line.indexOf(':') + 1).strip().split(",")) {
                    String[] ends = range.split("-");
                    int from = Integer.parseInt(ends[0]), to = Integer.parseInt(ends[ends.length - 1]);
                    cpus.set(from, to + 1);
                }
                return cpus;
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("no Cpus_allowed_list in /proc/thread-self/status");
    }

    /** Runs {@code bindToShare(share, shares)} on a new thread, so the test thread keeps its affinity. */
    private static BitSet boundShare(int share, int shares, int[] result) throws InterruptedException {
        AtomicReference<BitSet> seen = new AtomicReference<>();
        Thread t = new Thread(() -> {
            result[0] = Cpus.bindToShare(share, shares);
            seen.set(allowedList());
        });
        t.start();
        t.join();
        return seen.get();
    }

    @Test
    void sharesPartitionTheAllowedCpus() throws InterruptedException {
        assumeTrue(Cpus.usable(), "no affinity calls here");
        BitSet all = allowedList();
        assertEquals(all.cardinality(), Cpus.allowed());
        assertTrue(Cpus.online() >= all.cardinality(), "online " + Cpus.online() + " < allowed " + all.cardinality());
        for (int shares = 1; shares <= all.cardinality(); shares++) {
            BitSet union = new BitSet();
            int[] result = new int[1];
            for (int share = 0; share < shares; share++) {
                BitSet mine = boundShare(share, shares, result);
                int expected = (share + 1) * all.cardinality() / shares - share * all.cardinality() / shares;
                assertEquals(expected, result[0], "share " + share + " of " + shares);
                assertEquals(expected, mine.cardinality(), "share " + share + " of " + shares + ": " + mine);
                assertTrue(!union.intersects(mine), "share " + share + " of " + shares + " overlaps: " + mine + " / " + union);
                union.or(mine);
            }
            assertEquals(all, union, shares + " shares");
        }
        assertEquals(all, allowedList(), "the test thread's own affinity is untouched");
    }

    @Test
    void moreSharesThanCpusOrABadShareChangeNothing() throws InterruptedException {
        assumeTrue(Cpus.usable(), "no affinity calls here");
        BitSet all = allowedList();
        int[] result = new int[1];
        assertEquals(all, boundShare(0, all.cardinality() + 1, result));
        assertEquals(-1, result[0]);
        assertEquals(all, boundShare(2, 2, result));
        assertEquals(-1, result[0]);
        assertEquals(all, boundShare(-1, 1, result));
        assertEquals(-1, result[0]);
    }

    @Test
    void aThreadStartedByABoundThreadInheritsItsShare() throws InterruptedException {
        assumeTrue(Cpus.usable() && Cpus.allowed() >= 2, "needs 2 CPUs and affinity calls");
        AtomicReference<BitSet> parent = new AtomicReference<>(), child = new AtomicReference<>();
        Thread t = new Thread(() -> {
            Cpus.bindToShare(1, 2);
            parent.set(allowedList());
            Thread c = new Thread(() -> child.set(allowedList()));
            c.start();
            try {
                c.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        t.join();
        assertEquals(parent.get(), child.get());
        assertTrue(parent.get().cardinality() < allowedList().cardinality());
    }
}
