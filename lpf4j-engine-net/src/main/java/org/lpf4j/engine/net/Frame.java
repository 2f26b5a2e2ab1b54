package org.lpf4j.engine.net;

/**
 * The frame every message of the mesh travels in, described once. A frame is a 16-byte header
 * (little-endian) and {@code length} payload bytes:
 * <pre>
 * offset  size  field
 *      0     1  channel: 0..3 the protocol's ({@link org.lpf4j.superstep.Transport.Channel} ordinal),
 *               {@link #COLLECTIVE}, {@link #MESSAGE}, {@link #CONTROL}, {@link #BYE}, {@link #NOTE},
 *               {@link #NOTE_ACK}, {@link #FAIL}, {@link #REMOTE_LARGE}, {@link #REMOTE}, {@link #REMOTE_DONE}
 *      1     3  zero
 *      4     4  section: which section of the mesh the frame belongs to
 *      8     8  length: payload bytes, 0 ≤ length ≤ {@link #MAX_LENGTH}
 * </pre>
 * A receiver checks every field against what it expects (a known channel, a length no larger
 * than the receive posted for it, a section that is this one's or a later one's) and drops the
 * connection of a peer that breaks the format.
 */
final class Frame {
    private Frame() {}

    static final int HEADER = 16;
    /** The protocol's channels occupy codes 0..3. */
    static final int PROTOCOL_CHANNELS = 4;
    /** Words of a collective of the transport (allreduce, all-to-all). */
    static final int COLLECTIVE = 4;
    /** A small message: a cause at a section's end. */
    static final int MESSAGE = 5;
    /** A command of the runtime to the processes that wait for work. */
    static final int CONTROL = 6;
    /** The peer closes its end cleanly: what follows is an orderly end of stream, not a death. */
    static final int BYE = 7;
    /** A count of the sparse consensus: sent to a rank that does not know it is coming (taken by {@link Mesh#takeAny}). */
    static final int NOTE = 8;
    /** The receipt of a {@link #NOTE}, which its sender waits for before it enters the consensus's barrier. */
    static final int NOTE_ACK = 9;
    /** A death notice: a 4-byte rank (little-endian) that died, then why, in UTF-8; passed on by each process that learns it first. */
    static final int FAIL = 10;
    /** A large put's payload to read from the sender's memory ({@link SingleCopy}: its descriptor), on the connection of large payloads. */
    static final int REMOTE_LARGE = 11;
    /** A reply stream to read from the sender's memory ({@link SingleCopy}: its descriptor). */
    static final int REMOTE = 12;
    /** The receiver read a payload described by {@link #REMOTE_LARGE} or {@link #REMOTE}: no payload, the sender's slot as the section. */
    static final int REMOTE_DONE = 13;
    static final int CHANNELS = 14;
    /** The longest payload of one frame: the protocol's messages are far smaller; a larger length is a broken peer. */
    static final long MAX_LENGTH = 1L << 40;
}
