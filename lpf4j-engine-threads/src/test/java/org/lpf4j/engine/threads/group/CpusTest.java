package org.lpf4j.engine.threads.group;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link Cpus#allowedCpus} and {@link Cpus#bindTo} against what the kernel reports in {@code /proc}. */
@Timeout(60)
class CpusTest {
    /** @return the CPUs the calling thread may use, as the kernel reports them */
    static int[] fromProc() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (!line.startsWith("Cpus_allowed_list:")) continue;
                BitSet cpus = new BitSet();
                for (String range : line.substring(line.indexOf(':') + 1).strip().split(",")) {
                    String[] ends = range.split("-");
                    cpus.set(Integer.parseInt(ends[0]), Integer.parseInt(ends[ends.length - 1]) + 1);
                }
                return cpus.stream().toArray();
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("no Cpus_allowed_list in /proc/thread-self/status");
    }

    /** Runs {@code body} on a new thread (the test thread keeps its affinity) and returns what it saw. */
    private static <T> T onNewThread(java.util.function.Supplier<T> body) throws InterruptedException {
        AtomicReference<T> seen = new AtomicReference<>();
        Thread t = new Thread(() -> seen.set(body.get()));
        t.start();
        t.join();
        return seen.get();
    }

    @Test
    void allowedCpusAreTheKernelsList() {
        assumeTrue(Cpus.usable(), "no affinity calls here");
        assertArrayEquals(fromProc(), Cpus.allowedCpus());
        assertEquals(fromProc().length, Cpus.allowed());
        assertTrue(Cpus.online() >= Cpus.allowed(), "online " + Cpus.online() + " < allowed " + Cpus.allowed());
    }

    @Test
    void aBoundThreadRunsOnExactlyItsCpusAndTheThreadsItStartsInheritThem() throws InterruptedException {
        assumeTrue(Cpus.usable(), "no affinity calls here");
        int[] all = Cpus.allowedCpus();
        int[] last = {all[all.length - 1]};
        int[][] seen = onNewThread(() -> {
            boolean bound = Cpus.bindTo(last);
            int[] mine = fromProc();
            int[][] child = new int[1][];
            Thread c = new Thread(() -> child[0] = fromProc());
            c.start();
            try {
                c.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return new int[][] {{bound ? 1 : 0}, mine, child[0]};
        });
        assertEquals(1, seen[0][0], "bindTo refused");
        assertArrayEquals(last, seen[1]);
        assertArrayEquals(last, seen[2], "a thread started by a bound thread");
        assertArrayEquals(all, fromProc(), "the test thread's own affinity is untouched");
    }

    @Test
    void impossibleSetsAreRefusedAndChangeNothing() throws InterruptedException {
        assumeTrue(Cpus.usable(), "no affinity calls here");
        int[] all = Cpus.allowedCpus();
        for (int[] bad : new int[][] {{}, {-1}, {1024}}) {
            int[] after = onNewThread(() -> {
                assertFalse(Cpus.bindTo(bad), Arrays.toString(bad));
                return fromProc();
            });
            assertArrayEquals(all, after, Arrays.toString(bad));
        }
    }
}
