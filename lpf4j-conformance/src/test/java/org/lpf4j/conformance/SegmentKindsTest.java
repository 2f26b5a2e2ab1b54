package org.lpf4j.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Any segment the engine's threads can access works: heap arrays, native, mapped files. */
@Timeout(60)
class SegmentKindsTest {

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void heapNativeAndMappedSegmentsExchangeData(String engine, int p, @TempDir Path tempDir) {
        String dirName = tempDir.toString(); // a String crosses JVMs (multi-process engines ship the lambda)
        Matrix.exec(engine, p, ctx -> {
            Path dir = Path.of(dirName);
            int s = ctx.pid();
            try (Arena shared = Arena.ofShared();
                 FileChannel file = FileChannel.open(dir.resolve("pid" + s), StandardOpenOption.CREATE,
                         StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                MemorySegment heap = MemorySegment.ofArray(new long[4]);
                MemorySegment nativeSeg = shared.allocate(32);
                MemorySegment mapped = file.map(FileChannel.MapMode.READ_WRITE, 0, 32, shared);
                MemorySegment global = Arena.global().allocate(32);
                MemorySegment[] kinds = {heap, nativeSeg, mapped, global};
                ctx.resizeMemoryRegister(kinds.length);
                ctx.resizeMessageQueue(kinds.length);
                ctx.sync();
                Memslot[] slots = new Memslot[kinds.length];
                for (int k = 0; k < kinds.length; k++) {
                    kinds[k].set(ValueLayout.JAVA_LONG, 0, 100L * s + k);
                    slots[k] = ctx.registerGlobal(kinds[k]);
                }
                ctx.sync();
                // kind k's first word goes to the next pid's kind (k + 1) % n, second word.
                for (int k = 0; k < kinds.length; k++) {
                    ctx.put(slots[k], 0, (s + 1) % p, slots[(k + 1) % kinds.length], 8, 8);
                }
                ctx.sync();
                int prev = (s + p - 1) % p;
                for (int k = 0; k < kinds.length; k++) {
                    int fromKind = (k + kinds.length - 1) % kinds.length;
                    assertEquals(100L * prev + fromKind, kinds[k].get(ValueLayout.JAVA_LONG, 8), "kind " + k);
                }
                for (Memslot slot : slots) ctx.deregister(slot);
            }
        });
    }
}
