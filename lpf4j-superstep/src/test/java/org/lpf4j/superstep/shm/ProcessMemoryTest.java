package org.lpf4j.superstep.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ProcessMemory} reads another JVM's memory: a child JVM fills native memory with a known
 * pattern and prints its pid and the address; this JVM reads it whole and at an odd offset and
 * length, gets {@code EFAULT} for an address the child has not mapped and, once the child is
 * killed, {@code ESRCH}. Bounded in time; the child is killed in {@code finally}. A read holds
 * its destination: the destination's shared {@link Arena} cannot be closed while the kernel writes
 * into it.
 */
@Timeout(60)
class ProcessMemoryTest {
    static final int BYTES = 1 << 20;

    static byte pattern(long i) { return (byte) (i * 31 + (i >>> 8)); }

    /** The child: fills its memory, prints "pid address", and waits until its input ends. */
    public static void main(String[] args) throws Exception {
        MemorySegment m = Arena.global().allocate(BYTES, 64);
        for (long i = 0; i < BYTES; i++) m.set(ValueLayout.JAVA_BYTE, i, pattern(i));
        System.out.println(ProcessHandle.current().pid() + " " + m.address());
        System.out.flush();
        while (System.in.read() >= 0) {
            // until the parent closes its input (or kills it)
        }
    }

    @Test
    void readsAnotherJvmsMemoryAndNamesWhyItCannot() throws Exception {
        assertTrue(ProcessMemory.available(), "process_vm_readv through FFM (is --enable-native-access given?)");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process child = new ProcessBuilder(java, "-Xmx64m", "-cp", cp, ProcessMemoryTest.class.getName()).redirectErrorStream(true).start();
        try {
            String line = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertNotNull(line, "the child printed nothing");
            String[] f = line.strip().split(" ");
            long pid = Long.parseLong(f[0]), address = Long.parseLong(f[1]);
            ProcessMemory memory = new ProcessMemory();
            MemorySegment into = Arena.ofAuto().allocate(BYTES + 16);
            assertEquals(BYTES, memory.read(pid, address, into, 0, BYTES));
            long bad = 0;
            for (long i = 0; i < BYTES; i++) if (into.get(ValueLayout.JAVA_BYTE, i) != pattern(i)) bad++;
            assertEquals(0, bad, "bytes read wrong");
            into.fill((byte) 0);
            assertEquals(65_537, memory.read(pid, address + 3, into, 5, 65_537));
            for (long i = 0; i < 65_537; i++) if (into.get(ValueLayout.JAVA_BYTE, 5 + i) != pattern(3 + i)) bad++;
            assertEquals(0, bad, "bytes read wrong at an odd offset");
            assertEquals(0, into.get(ValueLayout.JAVA_BYTE, 4));
            assertEquals(0, into.get(ValueLayout.JAVA_BYTE, 5 + 65_537));
            long unmapped = memory.read(pid, 8, into, 0, 8);
            assertEquals(-ProcessMemory.EFAULT, unmapped, ProcessMemory.describe(unmapped));
            assertThrows(IllegalArgumentException.class, () -> memory.read(pid, address, into, 16, BYTES + 1));
            assertThrows(IllegalArgumentException.class, () -> memory.read(pid, address, MemorySegment.ofArray(new byte[8]), 0, 8));
            child.destroyForcibly();
            assertTrue(child.waitFor(20, TimeUnit.SECONDS));
            long gone = memory.read(pid, address, into, 0, 8);
            assertEquals(-ProcessMemory.ESRCH, gone, ProcessMemory.describe(gone));
            assertTrue(ProcessMemory.describe(gone).startsWith("ESRCH"));
        } finally {
            child.destroyForcibly();
            child.onExit().get(20, TimeUnit.SECONDS);
        }
    }

    /**
     * Reads of 16 MiB back to back (from this process's own memory) while another thread closes the
     * destination's shared Arena: a close that comes during a read is refused (the memory stays
     * while the kernel writes into it), and the first read after the close throws. Without the
     * hold the close succeeded at once, under the copy.
     */
    @Test
    void aReadHoldsItsDestinationSoThatItsArenaIsNotClosedUnderTheCopy() throws Exception {
        assertTrue(ProcessMemory.available(), "process_vm_readv through FFM (is --enable-native-access given?)");
        long pid = ProcessHandle.current().pid(), bytes = 16L << 20;
        MemorySegment source = Arena.ofAuto().allocate(bytes, 64);
        ProcessMemory memory = new ProcessMemory();
        int refused = 0;
        for (int attempt = 0; attempt < 20 && refused == 0; attempt++) {
            Arena arena = Arena.ofShared();
            MemorySegment into = arena.allocate(bytes, 64);
            CountDownLatch reading = new CountDownLatch(1);
            AtomicReference<Throwable> ended = new AtomicReference<>();
            Thread reader = Thread.ofPlatform().start(() -> {
                try {
                    while (true) {
                        long r = memory.read(pid, source.address(), into, 0, bytes);
                        if (r != bytes) throw new AssertionError("read " + ProcessMemory.describe(r));
                        reading.countDown();
                    }
                } catch (Throwable t) {
                    ended.set(t);
                    reading.countDown();
                }
            });
            assertTrue(reading.await(10, TimeUnit.SECONDS));
            while (true) {
                try {
                    arena.close();
                    break;
                } catch (IllegalStateException e) {
                    assertTrue(e.getMessage().contains("acquired"), e.toString());
                    refused++;
                }
            }
            reader.join(10_000);
            assertTrue(ended.get() instanceof IllegalStateException && ended.get().getMessage().contains("Arena is closed"),
                    "the reader should end at the first read after the close: " + ended.get());
        }
        assertTrue(refused > 0, "no close of the destination's Arena was refused in 20 tries: a read does not hold it");
    }
}
