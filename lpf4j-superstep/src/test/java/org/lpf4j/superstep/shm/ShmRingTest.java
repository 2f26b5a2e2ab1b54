package org.lpf4j.superstep.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared-memory ring: a byte stream that wraps around, a payload larger than the ring going
 * through in pieces, every byte the consumer sees complete (release/acquire) between two threads
 * and between two JVMs on one mapped file, and the wake-up flags; and the job directory's
 * names and modes.
 */
@Timeout(60)
class ShmRingTest {
    private static MemorySegment ring(Arena arena, long capacity) {
        return arena.allocate(ShmRing.bytesFor(capacity), 128);
    }

    @Test
    void bytesWrapAroundTheEndInOrder() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = ring(arena, 64);
            ShmRing out = ShmRing.producer(s, 64), in = ShmRing.consumer(s, 64);
            MemorySegment src = arena.allocate(200), dst = arena.allocate(200);
            for (int i = 0; i < 200; i++) src.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            long sent = 0, got = 0;
            for (int round = 0; sent < 200; round++) {
                long n = out.write(src, sent, Math.min(200 - sent, 40)); // 40 at a time: every third write wraps
                assertTrue(n > 0, "round " + round);
                sent += n;
                got += in.read(dst, got, 200 - got);
            }
            got += in.read(dst, got, 200 - got);
            assertEquals(200, got);
            assertEquals(0, in.available());
            assertEquals(-1, src.mismatch(dst));
        }
    }

    @Test
    void aFullRingTakesNoMoreAndAnEmptyOneGivesNothing() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = ring(arena, 100); // rounded up to 128
            ShmRing out = ShmRing.producer(s, 100), in = ShmRing.consumer(s, 100);
            assertEquals(128, out.capacity());
            MemorySegment buf = arena.allocate(300);
            assertEquals(0, in.read(buf, 0, 10));
            assertEquals(128, out.write(buf, 0, 300));
            assertEquals(0, out.free());
            assertEquals(0, out.write(buf, 0, 1));
            assertEquals(5, in.read(buf, 0, 5));
            assertEquals(5, out.free());
            assertThrows(IllegalArgumentException.class, () -> ShmRing.producer(s.asSlice(0, 200), 128));
        }
    }

    @Test
    void theWakeUpFlagsAreTakenOnceAfterTheyAreArmed() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = ring(arena, 64), b = arena.allocate(8);
            ShmRing out = ShmRing.producer(s, 64), in = ShmRing.consumer(s, 64);
            out.write(b, 0, 8);
            assertFalse(out.takeConsumerWaiting(), "nobody sleeps");
            in.armConsumer();
            out.write(b, 0, 8);
            assertTrue(out.takeConsumerWaiting());
            assertFalse(out.takeConsumerWaiting(), "one wake-up per sleep");
            out.armProducer();
            in.read(b, 0, 8);
            assertTrue(in.takeProducerWaiting());
            out.armProducer();
            out.disarmProducer();
            assertFalse(in.takeProducerWaiting());
        }
    }

    /** A stream of longs (each its index), much larger than the ring, checked on the other side. */
    private static void produce(ShmRing out, MemorySegment buf, long longs) {
        long next = 0;
        while (next < longs) {
            int k = (int) Math.min(buf.byteSize() / 8, longs - next);
            for (int i = 0; i < k; i++) buf.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, next + i);
            long at = 0;
            while (at < 8L * k) {
                long n = out.write(buf, at, 8L * k - at);
                at += n;
                if (n == 0) Thread.onSpinWait();
            }
            next += k;
        }
    }

    private static void consume(ShmRing in, MemorySegment buf, long longs) {
        long next = 0, have = 0;
        while (next < longs) {
            long n = in.read(buf, have, buf.byteSize() - have);
            if (n == 0) {
                Thread.onSpinWait();
                continue;
            }
            have += n;
            long whole = have / 8;
            for (int i = 0; i < whole; i++) {
                long v = buf.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
                if (v != next + i) throw new AssertionError("long " + (next + i) + " read as " + v);
            }
            next += whole;
            MemorySegment.copy(buf, whole * 8, buf, 0, have - whole * 8);
            have -= whole * 8;
        }
    }

    @Test
    void twoThreadsStreamEightMegabytesThroughFourKilobytesIntact() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment s = ring(arena, 4096);
            ShmRing out = ShmRing.producer(s, 4096), in = ShmRing.consumer(s, 4096);
            long longs = 1 << 20;
            Throwable[] failed = new Throwable[1];
            Thread consumer = Thread.ofPlatform().start(() -> {
                try {
                    consume(in, arena.allocate(1000), longs);
                } catch (Throwable t) {
                    failed[0] = t;
                }
            });
            produce(out, arena.allocate(3000), longs); // odd piece sizes: pieces straddle the wrap and the longs
            consumer.join(30_000);
            assertFalse(consumer.isAlive());
            if (failed[0] != null) throw new AssertionError(failed[0]);
        }
    }

    /** The other JVM of {@link #twoJvmsStreamThroughOneMappedFile}: consumes the stream from the ring in the file. */
    public static void main(String[] args) throws IOException {
        try (Arena arena = Arena.ofShared(); FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            MemorySegment s = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena);
            consume(ShmRing.consumer(s, Long.parseLong(args[1])), arena.allocate(1000), Long.parseLong(args[2]));
        }
        System.out.println("consumed");
    }

    @Test
    void twoJvmsStreamThroughOneMappedFile(@TempDir Path tmp) throws Exception {
        Path dir = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : tmp;
        Path file = Files.createTempFile(dir, "lpf4j-ring-test", "");
        Process child = null;
        try (Arena arena = Arena.ofShared(); FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long capacity = 8192, longs = 1 << 19;
            ch.write(java.nio.ByteBuffer.wrap(new byte[1]), ShmRing.bytesFor(capacity) - 1);
            MemorySegment s = ch.map(FileChannel.MapMode.READ_WRITE, 0, ShmRing.bytesFor(capacity), arena);
            String java = ProcessHandle.current().info().command().orElse("java");
            String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            child = new ProcessBuilder(List.of(java, "-cp", cp, ShmRingTest.class.getName(), file.toString(), Long.toString(capacity),
                    Long.toString(longs))).redirectErrorStream(true).start();
            produce(ShmRing.producer(s, capacity), arena.allocate(3000), longs);
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the consumer JVM did not end");
            String out = new String(child.getInputStream().readAllBytes());
            assertEquals(0, child.exitValue(), out);
            assertEquals("consumed\n", out, "no JVM warning, nothing else printed");
        } finally {
            if (child != null) child.destroyForcibly();
            Files.deleteIfExists(file);
        }
    }

    /**
     * A process killed while it set up a ring leaves its job's directory; the next mesh started
     * on the host removes it once nothing in it changed for the time given, and leaves alone a
     * directory in which anything changed since, a launcher's, and names not a job's.
     */
    @Test
    void directoriesKilledProcessesLeftAreSweptOthersKept(@TempDir Path base) throws Exception {
        java.nio.file.attribute.FileTime twoHoursAgo = java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 7_200_000);
        Path stale = ShmDirectory.of(base, "killed while it set up".getBytes());
        Files.setLastModifiedTime(ShmDirectory.createFile(stale, "0-1-1"), twoHoursAgo);
        Files.setLastModifiedTime(stale, twoHoursAgo);
        Path busy = ShmDirectory.of(base, "a live job, an old directory".getBytes());
        ShmDirectory.createFile(busy, "2-3-7"); // a connection being set up now
        Files.setLastModifiedTime(busy, twoHoursAgo);
        Path fresh = ShmDirectory.of(base, "a live job".getBytes());
        ShmDirectory.ensure(fresh);
        Path launcher = Files.createDirectory(base.resolve(ShmDirectory.PREFIX + "launch-123-abc"));
        Files.setLastModifiedTime(launcher, twoHoursAgo);
        assertEquals(1, ShmDirectory.removeStale(base, java.time.Duration.ofHours(1)));
        assertFalse(Files.exists(stale), "the killed process's leftover");
        assertTrue(Files.exists(busy) && Files.exists(fresh), "live jobs' directories");
        assertTrue(Files.exists(launcher), "a launcher's directory (the launcher's affair)");
        assertEquals(0, ShmDirectory.removeStale(base.resolve("missing"), java.time.Duration.ofHours(1)), "no base: nothing");
    }

    /**
     * A user other than root (uid 65534, through {@code setpriv}) owns the directory it made: the
     * second file in it checks its owner against this process's uid. ({@code /proc/self}, which
     * an earlier version took the uid from, is root's whoever reads it: every check but root's
     * failed, and pairs fell back to TCP.) Needs root to change user; CI runs as root.
     */
    @Test
    void aUserOtherThanRootOwnsItsDirectory() throws Exception {
        if (ShmDirectory.myUid() != 0) { // skipped on a developer's machine, a failure under CI (as the testkit's Needs does)
            String why = "needs root to run a process as another user";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) org.junit.jupiter.api.Assertions.fail("CI=true: " + why);
            org.junit.jupiter.api.Assumptions.abort(why);
        }
        Path base = Files.createTempDirectory("lpf4j-owner");
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxrwxrwx"));
        String javaCommand = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = Path.of(ShmDirectory.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + java.io.File.pathSeparator
                + Path.of(ShmOwnerProgram.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Process p = new ProcessBuilder("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", javaCommand, "-cp", cp,
                ShmOwnerProgram.class.getName(), base.toString()).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes());
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("UID 65534 OWNER 65534") && out.contains("OK"), out);
        } finally {
            p.destroyForcibly();
            ShmDirectory.removeTree(base);
        }
    }

    /**
     * A uid with no passwd entry (containers that run an arbitrary uid) has no user name (the JDK
     * says "?"): the job's directory is still its own, by number, for every process after the
     * first that made it.
     */
    @Test
    void aUserWithNoNameStillOwnsItsDirectory(@TempDir Path base) throws Exception {
        Path dir = ShmDirectory.of(base, "a job's secret, 40 bytes long...........".getBytes());
        ShmDirectory.ensure(dir);
        assertEquals(ShmDirectory.myUid(), ShmDirectory.uid(dir));
        String was = System.getProperty("user.name");
        System.setProperty("user.name", "?");
        try {
            ShmDirectory.ensure(dir); // it exists: its owner is checked
            assertTrue(Files.exists(ShmDirectory.createFile(dir, "0-1")));
        } finally {
            System.setProperty("user.name", was);
        }
    }

    @Test
    void theJobDirectoryIsNamedFromTheSecretAndPrivate(@TempDir Path base) throws Exception {
        byte[] secret = "a job's secret, 40 bytes long...........".getBytes();
        Path dir = ShmDirectory.of(base, secret);
        assertEquals(dir, ShmDirectory.of(base, secret.clone()), "the same job finds the same directory");
        byte[] other = secret.clone();
        other[0] ^= 1;
        assertNotEquals(dir, ShmDirectory.of(base, other));
        assertTrue(dir.getFileName().toString().matches("lpf4j-[0-9a-f]{32}"), dir.toString());
        assertFalse(dir.toString().contains("6a6f62"), "no byte of the secret in the name");
        Path f = ShmDirectory.createFile(dir, "0-1");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        Files.writeString(f, "left by a killed start");
        Path again = ShmDirectory.createFile(dir, "0-1"); // the next start of the same job replaces it
        assertEquals(0, Files.size(again));
        ShmDirectory.removeIfEmpty(dir);
        assertTrue(Files.exists(dir), "not empty: kept");
        Files.delete(again);
        ShmDirectory.removeIfEmpty(dir);
        assertFalse(Files.exists(dir));
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThrows(IOException.class, () -> ShmDirectory.ensure(dir), "a directory others can read is not used");
        Files.createFile(dir.resolve("x"));
        ShmDirectory.removeTree(dir);
        assertFalse(Files.exists(dir));
    }

    @Test
    void aRingByteArrayRoundTrip() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = ring(arena, 64);
            ShmRing out = ShmRing.producer(s, 64), in = ShmRing.consumer(s, 64);
            byte[] msg = "hello, ring".getBytes();
            out.write(MemorySegment.ofArray(msg), 0, msg.length);
            byte[] got = new byte[msg.length];
            assertEquals(msg.length, in.read(MemorySegment.ofArray(got), 0, got.length));
            assertArrayEquals(msg, got);
        }
    }
}
