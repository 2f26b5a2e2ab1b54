// One thread copying `size` bytes between two native segments, again and again: MemorySegment.copy,
// one memmove of the whole block, and memmove in pieces of `piece` bytes (BulkCopy's way above
// BulkCopy.NATIVE_PIECE) in the same run (docs/performance.md, "Copy bandwidth").
// Run: $JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED docs/scripts/CopyPieces.java [size [piece]]
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

public class CopyPieces {
    static final Linker LINKER = Linker.nativeLinker();
    static final MethodHandle MEMMOVE = LINKER.downcallHandle(LINKER.defaultLookup().find("memmove").orElseThrow(),
            FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));

    static void memmove(MemorySegment src, MemorySegment dst, long offset, long n) throws Throwable {
        MEMMOVE.invokeExact(dst.asSlice(offset, n), src.asSlice(offset, n), n);
    }

    public static void main(String[] args) throws Throwable {
        long size = args.length > 0 ? Long.parseLong(args[0]) : 1 << 20, piece = args.length > 1 ? Long.parseLong(args[1]) : 256 << 10;
        int n = (int) Math.max(100, (20_000L << 20) / size);
        Arena arena = Arena.ofShared();
        MemorySegment src = arena.allocate(size, 64), dst = arena.allocate(size, 64);
        src.fill((byte) 1);
        for (int round = 0; round < 6; round++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) MemorySegment.copy(src, 0, dst, 0, size);
            long t1 = System.nanoTime();
            for (int i = 0; i < n; i++) memmove(src, dst, 0, size);
            long t2 = System.nanoTime();
            for (int i = 0; i < n; i++) for (long o = 0; o < size; o += piece) memmove(src, dst, o, Math.min(piece, size - o));
            long t3 = System.nanoTime();
            if (round >= 3) { // the first rounds warm up the JIT
                System.out.printf("%d B: MemorySegment.copy %.1f, memmove %.1f, memmove in %d B pieces %.1f GB/s%n", size,
                        (double) size * n / (t1 - t0), (double) size * n / (t2 - t1), piece, (double) size * n / (t3 - t2));
            }
        }
    }
}
