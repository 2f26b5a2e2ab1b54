package org.lpf4j.spi.kit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link BulkCopy} keeps {@link MemorySegment#copy}'s contract on both of its paths. */
class BulkCopyTest {
    private static final BulkCopy AUTO = BulkCopy.of("auto");

    @Test
    void theTestsRunWithNativeAccessSoTheNativePathIsTheOneTested() {
        // surefire passes --enable-native-access: were it gone, the other tests would test Java copies twice
        assertTrue(AUTO.usesNativeCopy(), "lpf.copy=auto without the C library path: " + AUTO);
        assertFalse(BulkCopy.of("java").usesNativeCopy());
        assertSame(BulkCopy.JAVA, BulkCopy.of("java"));
        assertSame(AUTO, BulkCopy.of("auto"), "one instance per mode: settings that hold it compare equal");
        assertThrows(IllegalArgumentException.class, () -> BulkCopy.of("fast"));
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 7, BulkCopy.NATIVE_FROM - 1, BulkCopy.NATIVE_FROM, BulkCopy.NATIVE_FROM + 13,
            BulkCopy.NATIVE_PIECE - 1, BulkCopy.NATIVE_PIECE, BulkCopy.NATIVE_PIECE + 1, 1 << 20, 3 * BulkCopy.NATIVE_PIECE + 13})
    void copiesTheSameBytesAsMemorySegmentCopyAtOddOffsets(long size) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = random(arena, size + 64), viaKit = arena.allocate(size + 64), viaJdk = arena.allocate(size + 64);
            AUTO.copy(src, 3, viaKit, 5, size);
            MemorySegment.copy(src, 3, viaJdk, 5, size);
            assertEquals(-1, viaKit.mismatch(viaJdk), "size " + size);
            assertEquals(0, viaKit.get(ValueLayout.JAVA_BYTE, 4), "nothing before the area");
            assertEquals(0, viaKit.get(ValueLayout.JAVA_BYTE, 5 + size), "nothing after the area");
        }
    }

    /** Shifts below, at and above a piece: a copy in pieces in the wrong order would read bytes it already overwrote. */
    @ParameterizedTest
    @ValueSource(longs = {1, 100, BulkCopy.NATIVE_PIECE - 1, BulkCopy.NATIVE_PIECE + 3})
    void overlappingAreasCopyAsIfThroughATemporaryBuffer(long shift) {
        for (long size : new long[] {3 * BulkCopy.NATIVE_FROM, 3 * BulkCopy.NATIVE_PIECE + 7}) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment a = random(arena, size + shift), b = arena.allocate(size + shift);
                b.copyFrom(a);
                AUTO.copy(a, 0, a, shift, size);     // forwards over itself
                MemorySegment.copy(b, 0, b, shift, size);
                assertEquals(-1, a.mismatch(b), "forwards, size " + size + ", shift " + shift);
                AUTO.copy(a, shift, a, 0, size);     // backwards over itself
                MemorySegment.copy(b, shift, b, 0, size);
                assertEquals(-1, a.mismatch(b), "backwards, size " + size + ", shift " + shift);
            }
        }
    }

    @Test
    void heapSegmentsTakeTheJavaPath() {
        byte[] src = new byte[3 * (int) BulkCopy.NATIVE_FROM], dst = new byte[src.length];
        new Random(1).nextBytes(src);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment nat = arena.allocate(src.length);
            AUTO.copy(MemorySegment.ofArray(src), 0, nat, 0, src.length);
            AUTO.copy(nat, 0, MemorySegment.ofArray(dst), 0, src.length);
        }
        assertArrayEquals(src, dst);
    }

    @Test
    void fileMappedSegmentsAreCopiedToo() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("bulkcopy", ".bin");
        try (var channel = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.READ,
                java.nio.file.StandardOpenOption.WRITE); Arena arena = Arena.ofConfined()) {
            long size = 4 * BulkCopy.NATIVE_FROM;
            MemorySegment mapped = channel.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, size, arena);
            MemorySegment src = random(arena, size), back = arena.allocate(size);
            AUTO.copy(src, 0, mapped, 0, size);
            AUTO.copy(mapped, 0, back, 0, size);
            assertEquals(-1, src.mismatch(back));
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    /** 64 KiB (one call) and 768 KiB (three pieces): the pieces refuse what a whole copy refuses. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"auto, 65536", "java, 65536", "auto, 786432", "java, 786432"})
    void refusesWhatMemorySegmentCopyRefuses(String mode, long size) throws Exception {
        BulkCopy copy = BulkCopy.of(mode);
        Arena arena = Arena.ofShared();
        MemorySegment src = arena.allocate(size), dst = arena.allocate(size);
        assertThrows(IndexOutOfBoundsException.class, () -> copy.copy(src, 1, dst, 0, size));
        assertThrows(IndexOutOfBoundsException.class, () -> copy.copy(src, 0, dst, 1, size));
        assertThrows(IndexOutOfBoundsException.class, () -> copy.copy(src, -1, dst, 0, 10));
        assertThrows(IllegalArgumentException.class, () -> copy.copy(src, 0, dst.asReadOnly(), 0, size));
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment mine = confined.allocate(size);
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> CompletableFuture.runAsync(() -> copy.copy(mine, 0, dst, 0, size)).get());
            assertInstanceOf(WrongThreadException.class, e.getCause());
        }
        arena.close();
        assertThrows(IllegalStateException.class, () -> copy.copy(src, 0, dst, 0, size));
    }

    private static MemorySegment random(Arena arena, long size) {
        byte[] bytes = new byte[(int) size];
        new Random(size).nextBytes(bytes);
        MemorySegment s = arena.allocate(Math.max(1, size));
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, s, 0, size);
        return s;
    }
}
