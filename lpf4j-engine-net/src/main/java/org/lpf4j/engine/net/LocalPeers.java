package org.lpf4j.engine.net;

import org.lpf4j.spi.kit.JobKeys;
import org.lpf4j.superstep.shm.ShmDirectory;
import org.lpf4j.superstep.shm.ShmRing;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Whether a connection's peer shares this host, proven rather than assumed, and the connection's
 * rings if it does. Every connection of the mesh runs this exchange right after its handshake,
 * on the thread that made it ({@link Connections}), before the mesh sees it (blocking, bounded by
 * the socket's read timeout):
 * <pre>
 * dialler  → acceptor  OFFER:  magic, SHA-256 of the dialler's host identity, whether it offers (1/0),
 *                              ring bytes, the file's number, the nonce it wrote at the file's start,
 *                              this JVM's random token (or zeros: no rings in this JVM's memory)
 * acceptor → dialler   ANSWER: 1 if it mapped the file and found that nonce there, 2 if the token
 *                              is its own JVM's and it left the rings in this JVM's memory, else 0
 * </pre>
 * Peers of one JVM ({@link NetParameters#SHM_IN_JVM}: ranks of a JVM under
 * {@code lpf.engine.net.perJvm}, tasks of one Spark executor) so share rings allocated in its
 * memory, which the acceptor leaves in a JVM-wide table for the dialler to take, with no file
 * mapped; the token travels over the authenticated connection, so only this job's peers see it.
 * The dialler offers when shared memory is on and the boot's address of the peer is one of this
 * host's; before the offer it creates the connection's file ({@code <dialler>-<acceptor>-<number>},
 * mode 0600, in the job's 0700 directory, {@link ShmDirectory}), maps it and writes a fresh random
 * nonce at its start. The acceptor maps the file only if it too has shared memory on, finds the
 * dialler's address to be this host's and the host identities (host name and kernel boot id)
 * equal; finding the nonce the authenticated connection carried proves that both see the same
 * file. Only an answer of 1 makes the connection use the rings, on both sides. The acceptor
 * removes the file once it has mapped it, the dialler after the answer either way (both mappings
 * live on), and each removes the job's directory once it is empty, so nothing is left on disk
 * once the connection is made. A dialler that knows its peer to run in this JVM ({@link JvmPeers})
 * creates no file and offers only its token. Any failure to create or map falls back to TCP for that
 * connection; a peer that breaks the exchange fails the connection, as a broken handshake does.
 * With shared memory off the exchange still runs (and says no), so that the wire never depends
 * on a parameter.
 *
 * <p>On a connection that got rings, both sides then probe whether each may read the other's
 * memory ({@link SingleCopy#probe}: two more small messages, whatever the parameters say).
 *
 * <p>The file: a 128-byte preamble (the nonce, then the probe's two words), then the connection's rings of equal capacity: a
 * main connection's two (the dialler's frames to the acceptor, then the acceptor's to the
 * dialler), the higher rank's large connection one (its large payloads to the lower rank; nothing
 * goes the other way).
 *
 * <p>Every file this process maps stays mapped in one arena until the mesh ends ({@link #end}),
 * even for a connection dropped before then: closing a shared arena stops every thread of the
 * JVM for a moment, which once per connection made leaving a section of p = 256 take minutes.
 * What stays mapped is bounded by {@link NetParameters#SHM_PROCESS_BYTES}.
 *
 * <p>Cost per connection: two small messages, a file created, mapped and removed; nothing after.
 * Thread-safe: every connection's thread may use it at once.
 */
final class LocalPeers {
    private static final int MAGIC = 0x4C50464D; // "LPFM"
    private static final int NONCE = 16, PREAMBLE = 128, HOST = 32;
    private static final int OFFER_BYTES = 4 + HOST + 1 + 8 + 8 + NONCE + NONCE, ANSWER_BYTES = 1;
    /** This JVM's token: a dialler that sends it and an acceptor that holds it run in one JVM. */
    private static final byte[] JVM = JobKeys.random(NONCE);
    /** Rings an acceptor allocated for a dialler of its JVM, until the dialler takes them, by {@link #inJvmKey}. */
    private static final Map<String, Shared> IN_JVM = new ConcurrentHashMap<>();

    /** Rings in this JVM's memory and their lease in its budget ({@link InJvmRings}). */
    private record Shared(MemorySegment rings, InJvmRings.Lease lease) {}
    /** The variable in which a launcher names the directory it made for its job's shared memory (and removes after it). */
    static final String DIR_VARIABLE = "LPF_NET_SHM_DIR";
    /** A job directory unchanged for this long (or twice the set-up time, if longer) is a killed process's leftover. */
    static final long STALE_MILLIS = 3_600_000L;

    /** The job's directory, or null: shared memory off (every offer declined, none made). */
    private final Path dir;
    /** Whether peers of this JVM share rings in its memory ({@link NetParameters#SHM_IN_JVM}). */
    private final boolean inJvm;
    private final int rank;
    private final byte[] host;
    private final long capacity;
    /** The boot's addresses of the mesh's processes, by rank: a peer is on this host only if its address is. */
    private final List<InetSocketAddress> addresses;
    private final Consumer<String> log;
    /** Whether this process offers single-copy transfers to its linked peers ({@link NetParameters#SHM_SINGLE_COPY}). */
    private final boolean singleCopy = NetParameters.SHM_SINGLE_COPY.get();
    /** Files this process created: the next one's number, so that no two connections share a name. */
    private final AtomicLong files = new AtomicLong();
    /** Whether this JVM's limit refused rings for a peer of this JVM once (said once per process). */
    private volatile boolean refusedRings;
    /** Every file this process mapped, unmapped at once when the mesh ends; null with shared memory off. */
    private final Arena mappings;
    /** The buffers this process's connections keep out of the in-JVM rings' share ({@link InJvmRings}), 0 without such rings. */
    private final long buffersKept;
    /** The leases of the in-JVM rings this process holds, dropped when its mesh ends. */
    private final Queue<InJvmRings.Lease> leases = new ConcurrentLinkedQueue<>();
    /** The keys of rings this process left in {@link #IN_JVM} as acceptor: any its dialler never took go when the mesh ends. */
    private final Queue<String> leftForDiallers = new ConcurrentLinkedQueue<>();

    private LocalPeers(Path dir, boolean inJvm, int rank, long capacity, List<InetSocketAddress> addresses, Consumer<String> log) {
        this.dir = dir;
        this.inJvm = inJvm && dir != null;
        this.rank = rank;
        this.host = HostIdentity.SHA256;
        this.capacity = capacity;
        this.addresses = addresses;
        this.log = log;
        this.mappings = dir != null ? Arena.ofShared() : null;
        this.buffersKept = this.inJvm ? InJvmRings.bufferBytes(Math.max(1, addresses.size())) : 0;
        if (this.inJvm) {
            InJvmRings.jvm().reserveBuffers(buffersKept);
            JvmPeers.add(dir, rank);
        }
    }

    /**
     * @param key       the job's key
     * @param jobId     the job's id
     * @param addresses the boot's address of every process of the mesh, by rank
     * @param local     the processes of the mesh on this host ({@link Mesh#localProcesses}): rings are sized by them
     * @return this process's side of the exchange, with shared memory as the parameters say
     *         ({@link NetParameters#SHM}: off means every offer is declined and none made)
     */
    static LocalPeers open(byte[] key, long jobId, int rank, List<InetSocketAddress> addresses, int local, Consumer<String> log) {
        if (!NetParameters.SHM.get()) return off(rank, log);
        String configured = NetParameters.SHM_DIR.get().strip();
        String launcher = System.getenv(DIR_VARIABLE);
        Path base = Path.of(!configured.isEmpty() ? configured : launcher != null && !launcher.isBlank() ? launcher : "/dev/shm");
        if (!Files.isDirectory(base)) return off(rank, log);
        // What a process killed while it set up a ring left (a launcher, when there is one, removes its own directory).
        ShmDirectory.removeStale(base, Duration.ofMillis(Math.max(STALE_MILLIS, 2L * NetParameters.SETUP_MILLIS.get())));
        long process = processBytes(NetParameters.SHM_PROCESS_BYTES.get(), storeBytes(base), local);
        long capacity = capacity(pairBytes(NetParameters.SHM_BYTES.get(), process, local));
        return at(base, secret(key, jobId), NetParameters.SHM_IN_JVM.get(), rank, capacity, addresses, log);
    }

    /**
     * @param processBytes {@link NetParameters#SHM_PROCESS_BYTES}
     * @param storeBytes   the size of the file system that holds the job's directory
     * @param local        the job's processes on this host ({@link Mesh#localProcesses})
     * @return the shared memory one process gives its pairs on this host: {@code processBytes}, or
     *         less where half the file system over the host's processes is less, so that the job's
     *         rings on a host take at most a quarter of it (their pages are had when a file is made,
     *         {@link #reserve})
     */
    static long processBytes(long processBytes, long storeBytes, int local) {
        return Math.min(processBytes, storeBytes / 2 / Math.max(1, local));
    }

    /** @return the size of the file system that holds {@code base}, or Long.MAX_VALUE where it says none */
    static long storeBytes(Path base) {
        try {
            long total = Files.getFileStore(base).getTotalSpace();
            return total > 0 ? total : Long.MAX_VALUE;
        } catch (IOException e) {
            return Long.MAX_VALUE;
        }
    }

    /** @return the secret that names a job's directory: its key and id */
    static byte[] secret(byte[] key, long jobId) {
        byte[] secret = Arrays.copyOf(key, key.length + 8);
        ByteBuffer.wrap(secret, key.length, 8).putLong(jobId);
        return secret;
    }

    /** @return a side with shared memory on, its job's directory under {@code base}, rings of {@code capacity} */
    static LocalPeers at(Path base, byte[] secret, int rank, long capacity, List<InetSocketAddress> addresses, Consumer<String> log) {
        return at(base, secret, false, rank, capacity, addresses, log);
    }

    /** @param inJvm whether peers of this JVM share rings in its memory rather than a file */
    static LocalPeers at(Path base, byte[] secret, boolean inJvm, int rank, long capacity, List<InetSocketAddress> addresses,
                         Consumer<String> log) {
        return new LocalPeers(ShmDirectory.of(base, secret), inJvm, rank, capacity, addresses, log);
    }

    /** @return a side that declines every offer and makes none: TCP to every peer */
    static LocalPeers off(int rank, Consumer<String> log) {
        return new LocalPeers(null, false, rank, capacity(NetParameters.SHM_BYTES.get()), List.of(), log);
    }

    /**
     * @param pairBytes    {@link NetParameters#SHM_BYTES}
     * @param processBytes what one process gives its pairs on this host ({@link #processBytes})
     * @param local        the job's processes on this host
     * @return the shared memory of one pair: {@code pairBytes}, or less where the process's share
     *         over its {@code local - 1} peers of this host is less, at least 16 KiB (both ends of a
     *         pair compute the same)
     */
    static long pairBytes(long pairBytes, long processBytes, int local) {
        return Math.min(pairBytes, Math.max(16 << 10, processBytes / Math.max(1, local - 1)));
    }

    /** @return each ring's capacity when a pair has {@code pairBytes} of shared memory (its three rings and two preambles fit in it) */
    static long capacity(long pairBytes) {
        return Long.highestOneBit((pairBytes - 2L * PREAMBLE - 3L * ShmRing.HEADER) / 3);
    }

    /** @return the bytes of a connection's file with {@code rings} rings of {@code capacity} */
    static long fileBytes(long capacity, int rings) { return PREAMBLE + rings * ShmRing.bytesFor(capacity); }

    /** @return the job's directory, or null if shared memory is off */
    Path directory() { return dir; }

    /**
     * Runs the exchange over {@code ch}, a connection just authenticated, on its own thread; both
     * sides call this at once.
     *
     * @param peer    the rank at the other end
     * @param role    the connection's role ({@link Handshake#MAIN}, {@link Handshake#LARGE})
     * @param dialled whether this process dialled it
     * @return the connection's rings, or null: it stays on TCP
     * @throws IOException if the peer breaks the exchange (the connection is unusable)
     */
    ShmLink link(SocketChannel ch, int peer, int role, boolean dialled) throws IOException {
        int rings = role == Handshake.MAIN ? 2 : 1;
        return dialled ? offer(ch, peer, rings) : answer(ch, peer, rings);
    }

    /**
     * The mesh is closed and no thread uses its rings any more: unmaps every file this process
     * mapped, returns its share of in-JVM rings and buffers to the JVM's budget ({@link InJvmRings}),
     * forgets this rank in this JVM ({@link JvmPeers}), and removes the job's directory if it is
     * empty. Idempotent.
     */
    void end() {
        if (inJvm) JvmPeers.remove(dir, rank);
        synchronized (this) {
            if (mappings != null && mappings.scope().isAlive()) {
                mappings.close();
                for (String key; (key = leftForDiallers.poll()) != null; ) {
                    Shared untaken = IN_JVM.remove(key);
                    if (untaken != null) untaken.lease().drop(); // its dialler's hold: it never took them
                }
                for (InJvmRings.Lease l; (l = leases.poll()) != null; ) l.drop();
                if (buffersKept > 0) InJvmRings.jvm().releaseBuffers(buffersKept);
            }
        }
        close();
    }

    /** Removes the job's directory if no connection sets up its rings in it (then one that does makes it again). */
    void close() {
        if (dir != null) ShmDirectory.removeIfEmpty(dir);
    }

    /** @return whether the boot's address of {@code peer} is one of this host's, with shared memory on */
    private boolean local(int peer) {
        return dir != null && peer < addresses.size() && Mesh.isLocal(addresses.get(peer));
    }

    private static String name(int dialler, int acceptor, long number) { return dialler + "-" + acceptor + "-" + number; }

    private ShmLink offer(SocketChannel ch, int peer, int rings) throws IOException {
        Path file = null;
        MemorySegment m = null;
        byte[] nonce = JobKeys.random(NONCE);
        long number = files.incrementAndGet();
        try {
            if (local(peer) && !(inJvm && JvmPeers.has(dir, peer))) { // a peer of this JVM: its rings are in this JVM's memory, no file
                try {
                    file = ShmDirectory.createFile(dir, name(rank, peer, number));
                    m = map(file, fileBytes(capacity, rings), true);
                    MemorySegment.copy(nonce, 0, m, ValueLayout.JAVA_BYTE, 0, NONCE);
                } catch (IOException | RuntimeException e) {
                    log.accept("lpf4j net: rank " + rank + " uses TCP to rank " + peer + ": no shared memory in " + dir + " (" + e + ")");
                    m = null;
                }
            }
            ByteBuffer o = ByteBuffer.allocate(OFFER_BYTES);
            o.putInt(MAGIC).put(host).put((byte) (m != null ? 1 : 0)).putLong(capacity).putLong(number)
                    .put(m != null ? nonce : new byte[NONCE]).put(inJvm && local(peer) ? JVM : new byte[NONCE]).flip();
            Io.writeFully(ch, o);
            byte answer = Io.readFully(ch, ANSWER_BYTES).get(0);
            if (answer == 2 && inJvm && local(peer)) {
                Shared shared = IN_JVM.remove(inJvmKey(rank, peer, number));
                if (shared != null) leases.add(shared.lease());
                if (shared == null || shared.rings().byteSize() != fileBytes(capacity, rings)) {
                    throw new IOException("rank " + peer + " said it left rings in this JVM, and there are none of this connection's size");
                }
                return link(shared.rings(), true, ch, rings, true, peer);
            }
            if (answer != 0 && (answer != 1 || m == null)) throw new IOException("rank " + peer + " broke the locality exchange (answer " + answer + ")");
            if (answer == 0) return null;
            return link(m, false, ch, rings, true, peer);
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    log.accept("lpf4j net: rank " + rank + " could not remove " + file + ": " + e.getMessage());
                }
            }
            close();
        }
    }

    private ShmLink answer(SocketChannel ch, int peer, int rings) throws IOException {
        ByteBuffer o = Io.readFully(ch, OFFER_BYTES);
        if (o.getInt() != MAGIC) throw new IOException("rank " + peer + " broke the locality exchange (no offer)");
        byte[] theirHost = new byte[HOST], nonce = new byte[NONCE], token = new byte[NONCE];
        o.get(theirHost);
        boolean offered = o.get() == 1;
        long cap = o.getLong(), number = o.getLong();
        o.get(nonce).get(token);
        Shared shared = inJvm && local(peer) && MessageDigest.isEqual(token, JVM) && cap == capacity
                ? ringsInThisJvm(rings, peer) : null;
        if (shared != null) {
            String key = inJvmKey(peer, rank, number);
            leases.add(shared.lease());
            leftForDiallers.add(key);
            IN_JVM.put(key, shared);
            try {
                Io.writeFully(ch, ByteBuffer.wrap(new byte[] {2}));
            } catch (IOException | RuntimeException e) {
                if (IN_JVM.remove(key) != null) shared.lease().drop();
                throw e;
            }
            return link(shared.rings(), true, ch, rings, false, peer);
        }
        MemorySegment m = null;
        if (offered && local(peer) && Arrays.equals(theirHost, host)) {
            Path file = dir.resolve(name(peer, rank, number));
            try {
                if (cap != capacity) throw new IOException("its rings have " + cap + " bytes, this process's " + capacity);
                m = map(file, fileBytes(cap, rings), false);
                if (!MessageDigest.isEqual(m.asSlice(0, NONCE).toArray(ValueLayout.JAVA_BYTE), nonce)) {
                    throw new IOException(file + " does not hold the nonce rank " + peer + " wrote: not the file it made");
                }
                Files.deleteIfExists(file); // both have mapped it
            } catch (IOException | RuntimeException e) {
                log.accept("lpf4j net: rank " + rank + " uses TCP to rank " + peer + " on the same host: " + e);
                m = null;
            }
            close();
        }
        Io.writeFully(ch, ByteBuffer.wrap(new byte[] {(byte) (m != null ? 1 : 0)}));
        return m == null ? null : link(m, false, ch, rings, false, peer);
    }

    /**
     * @return rings for a peer of this JVM, page-aligned as a mapping and freed once both ends
     *         dropped them, with their lease in the JVM's budget; or null when they do not fit in
     *         the share of its direct memory ({@code -XX:MaxDirectMemorySize}) that the buffers
     *         of its meshes' connections leave ({@link InJvmRings}), or the JVM refuses them all the
     *         same: the pair then stays on TCP
     */
    private Shared ringsInThisJvm(int rings, int peer) {
        long bytes = fileBytes(capacity, rings);
        InJvmRings budget = InJvmRings.jvm();
        InJvmRings.Lease lease = budget.take(bytes);
        if (lease == null) {
            refused(peer, "rings of " + bytes + " bytes do not fit beside the connections' buffers (" + budget.describe() + ")");
            return null;
        }
        try {
            return new Shared(Arena.ofAuto().allocate(bytes, 4096), lease);
        } catch (OutOfMemoryError e) { // thrown before anything is allocated: the JVM is as it was
            lease.cancel();
            refused(peer, e.getMessage());
            return null;
        }
    }

    /** Says, once per process, that a pair of this JVM stays on TCP and why. */
    private void refused(int peer, String why) {
        if (refusedRings) return;
        refusedRings = true;
        log.accept("lpf4j net: rank " + rank + " uses TCP to rank " + peer + " of this JVM, and to any other whose rings"
                + " do not fit: " + why + " (raise -XX:MaxDirectMemorySize or lower lpf.engine.net.shmProcessBytes)");
    }

    /** @return the key of rings left in this JVM for the dialler: the job's directory's name (from its secret), the pair, the number */
    private String inJvmKey(int dialler, int acceptor, long number) { return dir.getFileName() + "/" + name(dialler, acceptor, number); }

    /** 64 KiB of zeros, to write a new ring file's pages with. */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 16).asReadOnlyBuffer();

    /**
     * Writes every page of a new ring file (zeros): a shared-memory file system too full for it
     * says so here ({@code ENOSPC}, and the pair stays on TCP) rather than with a SIGBUS at a ring's
     * first write of that page, which the JDK turns into an {@link InternalError} at any later
     * access. Costs a write of the file's length (a millisecond for 4 MiB).
     */
    static void reserve(FileChannel ch, long bytes) throws IOException {
        for (long at = 0; at < bytes; ) at += ch.write(ZEROS.duplicate().limit((int) Math.min(ZEROS.capacity(), bytes - at)), at);
    }

    /** @return {@code file} mapped in the mesh's arena ({@code bytes} long; made so if {@code create}, else checked) */
    private MemorySegment map(Path file, long bytes, boolean create) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            if (create) {
                ch.truncate(0);
                reserve(ch, bytes);
            } else if (ch.size() != bytes) {
                throw new IOException(file + " has " + ch.size() + " bytes, not " + bytes);
            }
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, mappings);
        }
    }

    /**
     * @return the link of a connection over its mapping {@code m}: ring 0 carries the dialler's
     *         bytes, ring 1 (a main connection's) the acceptor's; whether each side may read the
     *         other's memory is probed on it ({@link SingleCopy#probe}, in the preamble's words 16..32)
     * @param inJvm whether {@code m} is in this JVM's memory rather than a mapped file
     * @throws IOException if the peer breaks the probe
     */
    private ShmLink link(MemorySegment m, boolean inJvm, SocketChannel ch, int rings, boolean dialler, int peer) throws IOException {
        long ring = ShmRing.bytesFor(capacity);
        ShmRing fromDialler = null, toDialler = null;
        MemorySegment first = m.asSlice(PREAMBLE, ring);
        ShmLink l;
        if (dialler) {
            fromDialler = ShmRing.producer(first, capacity);
            if (rings == 2) toDialler = ShmRing.consumer(m.asSlice(PREAMBLE + ring, ring), capacity);
            l = new ShmLink(fromDialler, toDialler, ch, inJvm);
        } else {
            fromDialler = ShmRing.consumer(first, capacity);
            if (rings == 2) toDialler = ShmRing.producer(m.asSlice(PREAMBLE + ring, ring), capacity);
            l = new ShmLink(toDialler, fromDialler, ch, inJvm);
        }
        SingleCopy.probe(ch, m.asSlice(dialler ? NONCE : NONCE + 8, 8), singleCopy, l, rank, peer, log);
        return l;
    }

    /** This host's identity, found once per JVM (the host name may take a look-up). */
    private static final class HostIdentity {
        static final byte[] SHA256 = hostIdentity();
    }

    /** @return SHA-256 of this host's name and kernel boot id: equal for two processes of one host (a hint; the file proves it) */
    private static byte[] hostIdentity() {
        String id;
        try {
            id = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            id = "?";
        }
        try {
            id += "/" + Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
        } catch (IOException | RuntimeException e) {
            // no boot id on this system: the host name alone, the file proves the rest
        }
        try {
            return MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
