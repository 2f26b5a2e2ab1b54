package org.lpf4j.spi.kit;

import org.lpf4j.spi.CoreParameters;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Objects;

/**
 * The copy an engine makes when it moves a request's bytes, with
 * {@link MemorySegment#copy(MemorySegment, long, MemorySegment, long, long)}'s contract (bounds,
 * read-only destination, closed or foreign-thread scopes, overlapping areas). A copy of at least
 * {@link #NATIVE_FROM} bytes between two native segments goes to the C library's
 * {@code memmove}, whose loops outrun the JVM's copy stub on blocks that stay in the caches
 * ({@code docs/performance.md}, "Copy bandwidth"), when {@link CoreParameters#COPY} is
 * {@code auto} and the core module has native access ({@code --enable-native-access}): an
 * embedding program without it is never warned about a restricted call and gets
 * {@link MemorySegment#copy} throughout.
 *
 * <p>File-mapped segments always take {@link MemorySegment#copy}, which turns a fault in a
 * truncated file into an exception where the C library would crash the JVM. While a native copy
 * runs, both segments' scopes are kept alive: another thread's {@code Arena.close()} of one of
 * them fails then (as it does during a downcall) instead of waiting for the copy. A copy longer
 * than {@link #NATIVE_PIECE} is kept alive piece by piece: a close between two pieces succeeds,
 * and the next piece throws as {@link MemorySegment#copy} would, with the copy done in part.
 *
 * <p>An engine resolves one instance with its settings ({@link #resolve()}) and keeps it in a
 * final field. Cost: a size and two {@code isNative} tests above {@link MemorySegment#copy};
 * the native path adds bounds checks and a downcall of some tens of ns per piece of up to
 * {@link #NATIVE_PIECE} bytes. Allocates nothing once
 * compiled. Immutable, thread-safe.
 */
public final class BulkCopy {
    /**
     * Copies of at least this many bytes between native segments may go to the C library. Below
     * it the JVM's copy is the faster one: no downcall, and no shared scope to keep alive, which
     * costs an atomic update that processes pulling from one source contend for.
     */
    public static final long NATIVE_FROM = 32 * 1024;

    /**
     * A native copy longer than this goes to {@code memmove} in pieces of this size, the last piece
     * first where the destination overlaps the end of the source (so that overlapping copies keep
     * {@code memmove}'s meaning). glibc on AMD processors copies blocks below the L2 size with
     * {@code rep movsb} and larger ones with a vector loop that is slower there
     * ({@code docs/performance.md}, "Copy bandwidth"); pieces keep every block on the fast path.
     */
    public static final long NATIVE_PIECE = 256 * 1024;

    /** Always {@link MemorySegment#copy}. */
    public static final BulkCopy JAVA = new BulkCopy(false);

    private static final MethodHandle MEMMOVE = memmove();

    /** Large native copies by {@code memmove}, or {@link #JAVA} where this JVM does not allow it. */
    private static final BulkCopy NATIVE = MEMMOVE == null ? JAVA : new BulkCopy(true);

    private final boolean nativeLarge;

    private BulkCopy(boolean nativeLarge) { this.nativeLarge = nativeLarge; }

    private static MethodHandle memmove() {
        if (!BulkCopy.class.getModule().isNativeAccessEnabled()) return null;
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("memmove")
                    .map(f -> linker.downcallHandle(f, FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                            ValueLayout.JAVA_LONG)))
                    .orElse(null);
        } catch (RuntimeException | LinkageError e) { // no C library to link to: Java copies only
            return null;
        }
    }

    /** @return the copy {@link CoreParameters#COPY} asks for, as far as this JVM allows it */
    public static BulkCopy resolve() { return of(CoreParameters.COPY.get()); }

    /**
     * @param mode {@code auto} or {@code java}
     * @return the copy of that mode, as far as this JVM allows it
     * @throws IllegalArgumentException for another mode
     */
    public static BulkCopy of(String mode) {
        return switch (mode) {
            case "java" -> JAVA;
            case "auto" -> NATIVE;
            default -> throw new IllegalArgumentException("BulkCopy.of: mode '" + mode + "' is neither auto nor java");
        };
    }

    /** @return whether large native copies go to the C library's {@code memmove} */
    public boolean usesNativeCopy() { return nativeLarge; }

    /**
     * Copies as {@link MemorySegment#copy(MemorySegment, long, MemorySegment, long, long)} does.
     *
     * @throws IndexOutOfBoundsException if either area is outside its segment
     * @throws IllegalStateException     if either segment's scope is closed
     * @throws WrongThreadException      if either segment is confined to another thread
     * @throws IllegalArgumentException  if {@code dst} is read-only
     */
    public void copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long size) {
        if (!nativeLarge || size < NATIVE_FROM || !src.isNative() || !dst.isNative() || src.isMapped() || dst.isMapped()) {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, size);
            return;
        }
        Objects.checkFromIndexSize(srcOffset, size, src.byteSize());
        Objects.checkFromIndexSize(dstOffset, size, dst.byteSize());
        if (dst.isReadOnly()) throw new IllegalArgumentException("BulkCopy.copy: the destination is read-only: " + dst);
        if (size <= NATIVE_PIECE) {
            memmove(src, srcOffset, dst, dstOffset, size);
            return;
        }
        long from = src.address() + srcOffset, to = dst.address() + dstOffset;
        if (to > from && to - from < size) { // the destination overlaps the source's end: last piece first
            for (long end = size; end > 0; ) {
                long n = Math.min(NATIVE_PIECE, end);
                end -= n;
                memmove(src, srcOffset + end, dst, dstOffset + end, n);
            }
        } else {
            for (long done = 0; done < size; done += NATIVE_PIECE) {
                memmove(src, srcOffset + done, dst, dstOffset + done, Math.min(NATIVE_PIECE, size - done));
            }
        }
    }

    private static void memmove(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long size) {
        try {
            // The linker keeps both scopes alive during the call, and fails as an access would if one is closed.
            MEMMOVE.invokeExact(dst.asSlice(dstOffset, size), src.asSlice(srcOffset, size), size);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("BulkCopy.copy: memmove failed", t);
        }
    }

    @Override
    public String toString() { return nativeLarge ? "memmove from " + NATIVE_FROM + " B" : "MemorySegment.copy"; }
}
