package org.lpf4j.boot.tcp;

import org.lpf4j.spi.kit.JobHandshake;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code tcp} module's wire format. A frame is a 4-byte big-endian length {@code n}
 * (1 ≤ n ≤ the reader's limit), a type byte and {@code n - 1} payload bytes. Before a connection
 * is authenticated the limit is {@value #HANDSHAKE_LIMIT} bytes, so one frame of an unauthenticated
 * peer makes the coordinator allocate no more than that, and the peer has {@value #HANDSHAKE_MILLIS}
 * ms from its connection to complete its HELLO. What all unauthenticated peers together can cost
 * the coordinator is bounded by {@link TcpCoordinator#MAX_HANDSHAKES}: see {@link TcpCoordinator}.
 *
 * <h2>Handshake</h2>
 * The coordinator sends CHALLENGE (version, 32-byte nonce {@code sn}); the client answers HELLO
 * (version, rank, size, its nonce {@code cn}, {@code HMAC-SHA256(key, "lpf4j-boot hello" ‖ sn ‖ rank ‖ size ‖ cn)});
 * the coordinator checks the MAC and answers WELCOME ({@code HMAC-SHA256(key, "lpf4j-boot welcome" ‖ cn ‖ sn)}),
 * which the client checks in turn. The key never travels; both sides prove they hold it. The
 * nonces and proofs are {@link JobHandshake}'s ({@link #PROOFS}), shared with the net engine's
 * mesh, whose framing differs (fixed-length messages with a magic and a job id).
 */
final class Wire {
    private Wire() {}

    /** 2: a DATA frame carries the values of many owners (one frame per owner made a collect fence p frames per member). */
    static final int VERSION = 2;
    /** The largest frame accepted before a connection is authenticated (CHALLENGE, HELLO, WELCOME are far smaller). */
    static final int HANDSHAKE_LIMIT = 4096;
    /**
     * The coordinator's one deadline for a connection's HELLO: it closes a connection whose HELLO
     * has not arrived whole this many ms after it accepted it, however the bytes trickle in. A
     * session whose own HELLO went out late (JVMs starting on busy cores) connects again rather
     * than taking the closed connection for a refusal ({@link TcpSession}).
     */
    static final int HANDSHAKE_MILLIS = 5_000;
    static final int NONCE = JobHandshake.NONCE;
    /** The handshake's proofs: HELLO proves sn ‖ rank ‖ size ‖ cn, WELCOME cn ‖ sn. */
    static final JobHandshake PROOFS = new JobHandshake("lpf4j-boot", JobHandshake.Order.CLAIMS_BETWEEN_NONCES);
    /** The coordinator's claims in its WELCOME: none. */
    static final byte[] NO_CLAIMS = new byte[0];

    static final byte CHALLENGE = 1, HELLO = 2, WELCOME = 3, COMMIT = 4, FENCE = 5, DATA = 6, FENCE_OK = 7,
            FENCE_FAIL = 8, GET = 9, VALUE = 10, BYE = 11;

    /** Entries per DATA/COMMIT frame are cut at about this many bytes. */
    static final int CHUNK = 1 << 20;

    /** A frame as read: type and payload. */
    record Frame(byte type, ByteBuffer payload) {}

    /** A malformed frame or message: the connection is closed and the reason logged. */
    static final class ProtocolException extends IOException {
        private static final long serialVersionUID = 1L;

        ProtocolException(String message) { super(message); }
    }

    /**
     * Reads one frame.
     *
     * @param in    the stream
     * @param limit the largest {@code n} accepted
     * @return the frame, or {@code null} at a clean end of stream (before a frame)
     * @throws ProtocolException on a bad length or a stream that ends inside a frame
     */
    static Frame read(DataInputStream in, int limit) throws IOException {
        int b0 = in.read();
        if (b0 < 0) return null;
        int n;
        byte type;
        byte[] payload;
        try {
            n = (b0 << 24) | (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
            if (n < 1 || n > limit) throw new ProtocolException("frame length " + n + " not in [1, " + limit + "]");
            type = in.readByte();
            payload = new byte[n - 1];
            in.readFully(payload);
        } catch (EOFException e) {
            throw new ProtocolException("truncated frame (stream ended inside it)");
        }
        return new Frame(type, ByteBuffer.wrap(payload));
    }

    /** Builds frames. */
    static final class Builder {
        private ByteBuffer b;

        Builder(byte type, int capacity) {
            b = ByteBuffer.allocate(Math.max(16, capacity + 5));
            b.putInt(0).put(type);
        }

        private void room(int n) {
            if (b.remaining() < n) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(b.capacity() * 2, b.position() + n));
                b.flip();
                bigger.put(b);
                b = bigger;
            }
        }

        Builder i32(int v) { room(4); b.putInt(v); return this; }

        Builder i64(long v) { room(8); b.putLong(v); return this; }

        Builder u8(int v) { room(1); b.put((byte) v); return this; }

        Builder bytes(byte[] v) { room(v.length); b.put(v); return this; }

        Builder blob(byte[] v) { return i32(v.length).bytes(v); }

        Builder string(String s) { return blob(s.getBytes(StandardCharsets.UTF_8)); }

        int size() { return b.position(); }

        byte[] build() {
            b.putInt(0, b.position() - 4);
            byte[] out = new byte[b.position()];
            b.flip();
            b.get(out);
            return out;
        }
    }

    static void write(OutputStream out, byte[] frame) throws IOException { out.write(frame); }

    // ---- decoding helpers: every length is checked against what is left ----------------------

    static byte[] blob(ByteBuffer p, int max) throws ProtocolException {
        int n = i32(p);
        if (n < 0 || n > p.remaining() || n > max) {
            throw new ProtocolException("field length " + n + " exceeds the frame (" + p.remaining() + " bytes left)");
        }
        byte[] v = new byte[n];
        p.get(v);
        return v;
    }

    static String string(ByteBuffer p, int max) throws ProtocolException {
        return new String(blob(p, max), StandardCharsets.UTF_8);
    }

    static int i32(ByteBuffer p) throws ProtocolException {
        try { return p.getInt(); } catch (BufferUnderflowException e) { throw new ProtocolException("message too short"); }
    }

    static long i64(ByteBuffer p) throws ProtocolException {
        try { return p.getLong(); } catch (BufferUnderflowException e) { throw new ProtocolException("message too short"); }
    }

    static int u8(ByteBuffer p) throws ProtocolException {
        try { return p.get() & 0xff; } catch (BufferUnderflowException e) { throw new ProtocolException("message too short"); }
    }

    static byte[] fixed(ByteBuffer p, int n) throws ProtocolException {
        if (p.remaining() < n) throw new ProtocolException("message too short");
        byte[] v = new byte[n];
        p.get(v);
        return v;
    }

    static void end(ByteBuffer p) throws ProtocolException {
        if (p.hasRemaining()) throw new ProtocolException(p.remaining() + " unexpected bytes at the end of a message");
    }

    // ---- key-value entries ---------------------------------------------------------------------

    /**
     * Encodes entries into frames of at most about {@link #CHUNK} bytes each (one large value gets a
     * frame of its own).
     *
     * @param type   COMMIT
     * @param header writes the fields before the entry count
     * @param values the entries
     * @return the frames (at least one)
     */
    static List<byte[]> entries(byte type, java.util.function.Consumer<Builder> header, Map<String, byte[]> values) {
        List<byte[]> frames = new ArrayList<>();
        List<Map.Entry<String, byte[]>> chunk = new ArrayList<>();
        long bytes = 0;
        for (Map.Entry<String, byte[]> e : values.entrySet()) {
            long size = 8L + e.getKey().length() * 3L + e.getValue().length;
            if (!chunk.isEmpty() && bytes + size > CHUNK) {
                frames.add(entryFrame(type, header, chunk, bytes));
                chunk.clear();
                bytes = 0;
            }
            chunk.add(e);
            bytes += size;
        }
        if (!chunk.isEmpty() || frames.isEmpty()) frames.add(entryFrame(type, header, chunk, bytes));
        return frames;
    }

    private static byte[] entryFrame(byte type, java.util.function.Consumer<Builder> header,
                                     List<Map.Entry<String, byte[]>> chunk, long bytes) {
        Builder b = new Builder(type, (int) Math.min(Integer.MAX_VALUE - 64, bytes + 32));
        header.accept(b);
        b.i32(chunk.size());
        for (Map.Entry<String, byte[]> e : chunk) b.string(e.getKey()).blob(e.getValue());
        return b.build();
    }

    /**
     * Encodes a collect-data result into DATA frames of about {@link #CHUNK} bytes each, as few as
     * the bytes allow (not one per owner): a payload is a group count, then per group the owner
     * and its entries ({@link #entries}' layout after the header).
     *
     * @param data owner → key → value
     * @return the frames (none without data)
     */
    static List<byte[]> dataFrames(Map<Integer, Map<String, byte[]>> data) {
        List<byte[]> frames = new ArrayList<>();
        if (data.isEmpty()) return frames; // a barrier: FENCE_OK alone
        List<Map.Entry<Integer, List<Map.Entry<String, byte[]>>>> groups = new ArrayList<>();
        long bytes = 0;
        for (Map.Entry<Integer, Map<String, byte[]>> owner : data.entrySet()) {
            List<Map.Entry<String, byte[]>> chunk = new ArrayList<>();
            groups.add(Map.entry(owner.getKey(), chunk));
            bytes += 8;
            for (Map.Entry<String, byte[]> e : owner.getValue().entrySet()) {
                long size = 8L + e.getKey().length() * 3L + e.getValue().length;
                if (bytes + size > CHUNK && !(groups.size() == 1 && chunk.isEmpty())) {
                    frames.add(dataFrame(groups, bytes));
                    groups = new ArrayList<>();
                    chunk = new ArrayList<>();
                    groups.add(Map.entry(owner.getKey(), chunk));
                    bytes = 8;
                }
                chunk.add(e);
                bytes += size;
            }
        }
        frames.add(dataFrame(groups, bytes));
        return frames;
    }

    private static byte[] dataFrame(List<Map.Entry<Integer, List<Map.Entry<String, byte[]>>>> groups, long bytes) {
        Builder b = new Builder(DATA, (int) Math.min(Integer.MAX_VALUE - 64, bytes + 32)).i32(groups.size());
        for (Map.Entry<Integer, List<Map.Entry<String, byte[]>>> g : groups) {
            b.i32(g.getKey()).i32(g.getValue().size());
            for (Map.Entry<String, byte[]> e : g.getValue()) b.string(e.getKey()).blob(e.getValue());
        }
        return b.build();
    }

    /**
     * Decodes a DATA payload ({@link #dataFrames}) into {@code into}.
     *
     * @param p    the payload
     * @param into owner → key → value, added to
     */
    static void readData(ByteBuffer p, Map<Integer, Map<String, byte[]>> into) throws ProtocolException {
        int groups = i32(p);
        if (groups < 0 || groups > p.remaining() / 8) throw new ProtocolException("group count " + groups + " exceeds the frame");
        for (int g = 0; g < groups; g++) {
            int owner = i32(p);
            into.computeIfAbsent(owner, k -> new java.util.HashMap<>()).putAll(entryList(p));
        }
        end(p);
    }

    static Map<String, byte[]> readEntries(ByteBuffer p) throws ProtocolException {
        Map<String, byte[]> m = entryList(p);
        end(p);
        return m;
    }

    private static Map<String, byte[]> entryList(ByteBuffer p) throws ProtocolException {
        int n = i32(p);
        if (n < 0 || n > p.remaining() / 8) throw new ProtocolException("entry count " + n + " exceeds the frame");
        Map<String, byte[]> m = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            String k = string(p, 4 * 511);
            m.put(k, blob(p, Integer.MAX_VALUE));
        }
        return m;
    }

    /**
     * Encodes the participants of a fence: -1 for all, else the count and the ranks.
     */
    static void ranks(Builder b, int[] ranks) {
        if (ranks == null) {
            b.i32(-1);
            return;
        }
        b.i32(ranks.length);
        for (int r : ranks) b.i32(r);
    }

    static int[] readRanks(ByteBuffer p, int size) throws ProtocolException {
        int n = i32(p);
        if (n == -1) return null;
        if (n < 1 || n > size) throw new ProtocolException("fence of " + n + " ranks in a job of " + size);
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = i32(p);
            if (r[i] < 0 || r[i] >= size || (i > 0 && r[i] <= r[i - 1])) {
                throw new ProtocolException("fence ranks not ascending in [0, " + size + ")");
            }
        }
        return r;
    }

}
