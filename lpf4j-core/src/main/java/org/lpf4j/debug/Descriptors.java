package org.lpf4j.debug;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * How a process describes its requests to their target in the layer's exchange: per request
 * the longs put (1) or get (0), the remote slot's id, the remote offset, the size and the
 * length of a text, then the text (the call, the site and the remote slot as the origin names
 * them, one per line) padded to 8 bytes.
 */
final class Descriptors {
    private Descriptors() {}

    private static final int HEAD = 5 * 8;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    /** @return the descriptors of these requests, in their order */
    static byte[] encode(List<Request> requests) {
        byte[][] texts = new byte[requests.size()][];
        long bytes = 0;
        for (int i = 0; i < texts.length; i++) {
            Request r = requests.get(i);
            texts[i] = (r.call() + "\n" + r.site + "\n" + r.remoteSlot).getBytes(StandardCharsets.UTF_8);
            bytes += HEAD + padded(texts[i].length);
        }
        if (bytes > Integer.MAX_VALUE - 16) throw new OutOfMemoryError("lpf debug: descriptors of " + bytes + " bytes");
        byte[] out = new byte[(int) bytes];
        MemorySegment m = MemorySegment.ofArray(out);
        long at = 0;
        for (int i = 0; i < texts.length; i++) {
            Request r = requests.get(i);
            m.set(LONG, at, r.put ? 1 : 0);
            m.set(LONG, at + 8, r.remoteSlot.id());
            m.set(LONG, at + 16, r.remoteOffset);
            m.set(LONG, at + 24, r.size);
            m.set(LONG, at + 32, texts[i].length);
            MemorySegment.copy(texts[i], 0, m, ValueLayout.JAVA_BYTE, at + HEAD, texts[i].length);
            at += HEAD + padded(texts[i].length);
        }
        return out;
    }

    /**
     * Reads {@code count} descriptors at {@code offset} of the mailbox, sent by {@code origin}
     * to {@code target}, into {@code into}.
     */
    static void decode(Mailbox mailbox, long offset, long count, int origin, int target, List<Incoming> into) {
        long at = offset;
        for (long i = 0; i < count; i++) {
            boolean put = mailbox.readLong(at) == 1;
            int slotId = (int) mailbox.readLong(at + 8);
            long remoteOffset = mailbox.readLong(at + 16), size = mailbox.readLong(at + 24), length = mailbox.readLong(at + 32);
            String[] text = mailbox.readText(at + HEAD, length).split("\n", 3);
            into.add(new Incoming(Request.remote(put, origin, target, remoteOffset, size, text[0], text[1]),
                    slotId, text[2]));
            at += HEAD + padded(length);
        }
    }

    /** @return {@code n} rounded up to a multiple of 8 */
    static long padded(long n) { return (n + 7) & ~7L; }

    /** @return a 64-bit hash (FNV-1a) of the collective calls without their sites, to compare processes */
    static long hash(List<String> keys) {
        long h = 0xcbf29ce484222325L;
        for (String k : keys) {
            for (int i = 0; i < k.length(); i++) {
                h ^= k.charAt(i);
                h *= 0x100000001b3L;
            }
            h ^= '|';
            h *= 0x100000001b3L;
        }
        return h;
    }
}
