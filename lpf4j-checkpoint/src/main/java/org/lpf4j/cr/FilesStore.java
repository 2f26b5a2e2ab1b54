package org.lpf4j.cr;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code files} module's store; the directory's layout is {@link CheckpointDirectory}'s.
 * Every file is written under a {@code .tmp} name, forced to the device and renamed, so that a
 * name without {@code .tmp} always holds a whole file.
 */
final class FilesStore implements CheckpointStore {
    static final String REQUEST_FILE = CheckpointDirectory.REQUEST_FILE;
    static final String COMMITTED = CheckpointDirectory.COMMITTED;
    private static final long POLL_MILLIS = 100;

    private final Path dir;
    private final CheckpointDirectory layout;
    private final CheckpointModule.Job job;
    private final AtomicBoolean requested = new AtomicBoolean();
    private volatile boolean closed;
    private Thread watcher;
    /** Whether the watcher wrote the job file's "running" line (later polls only touch it). */
    private boolean jobWritten;
    /** The run whose progress process 0 records, and the iteration that comes next in it (-1: none yet). */
    private volatile String progressRun;
    private volatile long progress = -1;
    /** The progress last written to the directory (the watcher's and close's, under this lock). */
    private long progressWritten = -1;

    FilesStore(Path dir, String origin, CheckpointModule.Job job) {
        this.dir = dir.toAbsolutePath();
        this.job = job;
        this.layout = new CheckpointDirectory(this.dir);
        try {
            Files.createDirectories(this.dir);
        } catch (IOException e) {
            throw new IllegalStateException(origin + ": cannot create the checkpoint directory " + this.dir + ": " + e, e);
        }
        if (!Files.isDirectory(this.dir)) throw new IllegalStateException(origin + ": " + this.dir + " is not a directory");
        Path probe = this.dir.resolve(".writable-" + job.pid() + "-" + ProcessHandle.current().pid());
        try {
            Files.write(probe, new byte[1]);
            Files.delete(probe);
        } catch (IOException e) {
            throw new IllegalStateException(origin + ": the checkpoint directory " + this.dir + " is not writable: " + e, e);
        }
    }

    @Override public String where() { return "directory " + dir; }

    private Path seqDir(long seq) { return layout.seqDir(seq); }

    private Path part(long seq, int pid) { return seqDir(seq).resolve("part-" + pid + ".lpfcp"); }

    @Override
    public void write(long seq, MemorySegment part) throws IOException {
        Path target = part(seq, job.pid());
        Files.createDirectories(target.getParent());
        writeWhole(target, part);
    }

    /**
     * Writes under a .tmp name, forces the file, renames it and forces the directory (so that the
     * name survives a crash of the host); on failure nothing remains.
     */
    private static void writeWhole(Path target, MemorySegment bytes) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                for (long at = 0; at < bytes.byteSize(); at += PartFormat.SLICE) {
                    ByteBuffer slice = bytes.asSlice(at, Math.min(PartFormat.SLICE, bytes.byteSize() - at)).asByteBuffer();
                    while (slice.hasRemaining()) ch.write(slice);
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            forceDirectory(target.getParent());
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Not every platform or file system lets a directory be forced; the files themselves were.
        }
    }

    @Override
    public MemorySegment read(long seq) throws IOException {
        Path p = part(seq, job.pid());
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            return ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), Arena.ofAuto());
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(p + " (part of pid " + job.pid() + " is missing)");
        }
    }

    @Override
    public void commit(long seq, String description) throws IOException {
        writeWhole(seqDir(seq).resolve(COMMITTED), MemorySegment.ofArray(description.getBytes(StandardCharsets.UTF_8)));
    }

    @Override
    public List<Long> committed() { return layout.committed(); }

    @Override
    public void progress(String run, long iteration) {
        if (progressRun == null) progressRun = run;
        progress = iteration;
    }

    @Override
    public long reached(String run) {
        try {
            return Long.parseLong(Files.readString(layout.reachedFile(run)).trim());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Writes the recorded progress if it changed since the last write: a small file under a .tmp
     * name, renamed; not forced (it only feeds a message, and the next write replaces it).
     */
    private synchronized void writeProgress() {
        String run = progressRun;
        long now = progress;
        if (run == null || now == progressWritten) return;
        try {
            replaceSmall(layout.reachedFile(run), now + "\n");
            progressWritten = now;
        } catch (IOException e) {
            // Only a message would miss it; the next poll tries again.
        }
    }

    @Override
    public List<Long> incomplete() { return layout.incomplete(); }

    @Override
    public String description(long seq) { return layout.description(seq).orElse(null); }

    @Override
    public long nextSeq() {
        List<Long> seqs = layout.all();
        return seqs.isEmpty() ? 1 : seqs.get(0) + 1;
    }

    @Override
    public void prune(int keep) {
        List<Long> committed = committed();
        long newest = committed.isEmpty() ? Long.MAX_VALUE : committed.get(0);
        for (int i = keep; i < committed.size(); i++) delete(committed.get(i));
        for (long s : incomplete()) if (s < newest) delete(s);
    }

    /** Left for the next prune when it fails: a leftover old checkpoint is harmless. */
    private void delete(long seq) { layout.delete(seq); }

    @Override
    public boolean outsideRequest() {
        if (watcher == null) startWatcher();
        return requested.getAndSet(false);
    }

    @Override
    public void requestAgain() { requested.set(true); }

    @Override
    public void discardOutsideRequest() {
        try {
            Files.deleteIfExists(dir.resolve(REQUEST_FILE));
        } catch (IOException e) {
            // the watcher will see it then; one checkpoint too many is harmless
        }
    }

    /**
     * Starts the thread that looks for the request file. It holds the store only weakly, so that
     * a store whose program never closed it stops being watched once it is collected.
     */
    private void startWatcher() {
        Path request = dir.resolve(REQUEST_FILE);
        java.lang.ref.WeakReference<FilesStore> self = new java.lang.ref.WeakReference<>(this);
        AtomicBoolean flag = requested;
        watcher = Thread.ofPlatform().daemon().name("lpf4j-cr-request-watcher").start(() -> {
            while (true) {
                FilesStore store = self.get();
                if (store == null || store.closed) return;
                try {
                    if (Files.deleteIfExists(request)) flag.set(true);
                    store.writeProgress();
                    store.touchJob();
                    store = null;
                    Thread.sleep(POLL_MILLIS);
                } catch (InterruptedException e) {
                    return;
                } catch (IOException e) {
                    // transient (e.g. a shared file system hiccup): look again next time
                }
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        Thread w = watcher;
        if (w != null) {
            w.interrupt();
            try {
                w.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // Process 0 (the watcher's): lpf checkpoint then says at once that the job ended.
            writeJob("ended " + java.time.Instant.now() + "\n");
        }
        writeProgress();
    }

    /** The watcher, every poll: marks the job running (written once, then only touched). */
    private void touchJob() throws IOException {
        if (closed) return;
        Path f = layout.jobFile();
        if (jobWritten) {
            Files.setLastModifiedTime(f, java.nio.file.attribute.FileTime.from(java.time.Instant.now()));
        } else {
            writeJob("running: pid " + ProcessHandle.current().pid() + " since " + java.time.Instant.now() + "\n");
            jobWritten = true;
        }
    }

    /** Replaces the job file (it only feeds lpf checkpoint's messages). */
    private void writeJob(String text) {
        try {
            replaceSmall(layout.jobFile(), text);
        } catch (IOException e) {
            // only lpf checkpoint's message would miss it
        }
    }

    /** Writes a small file under a .tmp name and renames it over {@code target}; not forced. */
    private static void replaceSmall(Path target, String text) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.writeString(tmp, text);
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
