package org.lpf4j.cr;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The bytes of one process's part of a checkpoint, described once:
 *
 * <pre>
 *  offset  size  field
 *       0     8  MAGIC "LPF4JCP1" (little-endian long)
 *       8     8  TOTAL: bytes of the whole part, checksum included
 *      16     4  HEADER_LENGTH: bytes of the header text
 *      20     4  ENTRIES: number of entries
 *      24     H  the header: UTF-8 lines key=value (program, nprocs, pid, seq, superstep, lpf4j,
 *                entry.i = kind:length:name), padded with zeros to a multiple of 8
 *       .     .  each entry's bytes, in declaration order, each padded to a multiple of 8
 * TOTAL-8     8  CRC32C of bytes [0, TOTAL-8) (long)
 * </pre>
 *
 * A part is accepted only if its magic, length and checksum agree; anything else (a truncated
 * or overwritten file) is {@linkplain Damaged damaged}.
 */
final class PartFormat {
    private static final long MAGIC_LPF = littleEndian("LPF4JCP1");
    static final int TOTAL = 8, HEADER_LENGTH = 16, ENTRIES = 20, HEADER = 24;
    /** The lpf4j version written into every part and commit mark. */
    static final String LPF4J_VERSION = TriggerParameters.VERSION.toString();
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private PartFormat() {}

    private static long littleEndian(String eight) {
        byte[] b = eight.getBytes(StandardCharsets.US_ASCII);
        long v = 0;
        for (int i = 7; i >= 0; i--) v = v << 8 | (b[i] & 0xFF);
        return v;
    }

    /** A part's entry: what was declared under {@code name}, of {@code kind} "segment" or "value". */
    record Entry(String name, String kind, long length) {}

    /** A verified part: its header fields, entries and where their bytes lie. */
    record Decoded(Map<String, String> header, List<Entry> entries, long[] offsets, MemorySegment bytes) {
        MemorySegment data(int entry) { return bytes.asSlice(offsets[entry], entries.get(entry).length()); }
    }

    /** A part that fails the checks: truncated, overwritten, not a part at all. */
    static final class Damaged extends IOException {
        private static final long serialVersionUID = 1L;

        Damaged(String message) { super(message); }
    }

    static long pad(long n) { return (n + 7) & ~7L; }

    /**
     * @param header  the header text
     * @param lengths the entries' lengths
     * @return the bytes of the part
     */
    static long size(byte[] header, long[] lengths) {
        long n = HEADER + pad(header.length);
        for (long l : lengths) n += pad(l);
        return n + 8;
    }

    /** @return the fields as lines {@code key=value}: the text of a part's header and of a commit mark */
    static String lines(Map<String, String> fields) {
        StringBuilder b = new StringBuilder();
        fields.forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
        return b.toString();
    }

    /** @return the fields of a text of lines {@code key=value} ({@link #lines}), in their order; other lines are skipped */
    static Map<String, String> fields(String text) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) m.put(line.substring(0, eq), line.substring(eq + 1));
        }
        return m;
    }

    /** @return the header text for these fields and entries */
    static byte[] header(Map<String, String> fields, List<Entry> entries) {
        Map<String, String> all = new LinkedHashMap<>(fields);
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            all.put("entry." + i, e.kind() + ":" + e.length() + ":" + e.name());
        }
        return lines(all).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Writes a part into {@code dst} (at least {@link #size} bytes).
     *
     * @return the part's length
     */
    static long write(MemorySegment dst, byte[] header, MemorySegment[] data) {
        long[] lengths = new long[data.length];
        for (int i = 0; i < data.length; i++) lengths[i] = data[i].byteSize();
        long total = size(header, lengths);
        dst.set(LONG, 0, MAGIC_LPF);
        dst.set(LONG, TOTAL, total);
        dst.set(INT, HEADER_LENGTH, header.length);
        dst.set(INT, ENTRIES, data.length);
        long at = HEADER;
        MemorySegment.copy(MemorySegment.ofArray(header), 0, dst, at, header.length);
        dst.asSlice(at + header.length, pad(header.length) - header.length).fill((byte) 0);
        at += pad(header.length);
        for (MemorySegment d : data) {
            MemorySegment.copy(d, 0, dst, at, d.byteSize());
            dst.asSlice(at + d.byteSize(), pad(d.byteSize()) - d.byteSize()).fill((byte) 0);
            at += pad(d.byteSize());
        }
        dst.set(LONG, at, checksum(dst.asSlice(0, at)));
        return total;
    }

    /** The largest slice handed to a ByteBuffer API (which cannot address 2 GiB or more). */
    static final long SLICE = 1L << 30;

    static long checksum(MemorySegment bytes) {
        CRC32C crc = new CRC32C();
        for (long at = 0; at < bytes.byteSize(); at += SLICE) {
            crc.update(bytes.asSlice(at, Math.min(SLICE, bytes.byteSize() - at)).asByteBuffer());
        }
        return crc.getValue();
    }

    /**
     * Verifies and decodes a part.
     *
     * @param part the bytes as read
     * @param what the part, for messages ("part 2 of checkpoint 7 in directory D")
     * @throws Damaged naming what is wrong
     */
    static Decoded read(MemorySegment part, String what) throws Damaged {
        long size = part.byteSize();
        if (size < HEADER + 8) throw new Damaged(what + " is truncated: " + size + " bytes");
        if (part.get(LONG, 0) != MAGIC_LPF) throw new Damaged(what + " is not a checkpoint part (wrong magic number)");
        long total = part.get(LONG, TOTAL);
        if (total != size) throw new Damaged(what + " is truncated or overlong: " + size + " bytes, its header says " + total);
        long stored = part.get(LONG, size - 8);
        long computed = checksum(part.asSlice(0, size - 8));
        if (stored != computed) {
            throw new Damaged(what + " is damaged: checksum " + Long.toHexString(computed) + ", written "
                    + Long.toHexString(stored));
        }
        int headerLength = part.get(INT, HEADER_LENGTH);
        int count = part.get(INT, ENTRIES);
        if (headerLength < 0 || count < 0 || HEADER + pad(headerLength) > size - 8) throw new Damaged(what + " has a bad header");
        String text = new String(part.asSlice(HEADER, headerLength).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        Map<String, String> fields = fields(text);
        List<Entry> entries = new ArrayList<>();
        for (var it = fields.entrySet().iterator(); it.hasNext(); ) {
            var field = it.next();
            if (!field.getKey().startsWith("entry.")) continue;
            String[] f = field.getValue().split(":", 3);
            if (f.length != 3) throw new Damaged(what + " has a bad entry line: " + field.getKey() + "=" + field.getValue());
            entries.add(new Entry(f[2], f[0], Long.parseLong(f[1])));
            it.remove();
        }
        if (entries.size() != count) throw new Damaged(what + " lists " + entries.size() + " entries, expects " + count);
        long[] offsets = new long[count];
        long at = HEADER + pad(headerLength);
        for (int i = 0; i < count; i++) {
            offsets[i] = at;
            at += pad(entries.get(i).length());
        }
        if (at != size - 8) throw new Damaged(what + ": entries end at " + at + ", the part at " + (size - 8));
        return new Decoded(fields, entries, offsets, part);
    }
}
