package org.lpf4j.cr;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A directory of the {@code files} module seen from outside a job: what {@code lpf run} and
 * {@code lpf checkpoint} read (which checkpoints are complete, what made them) and the outside
 * request for a checkpoint. The layout:
 * <pre>
 * DIR/cp-0000000007/part-3.lpfcp   process 3's part of checkpoint 7 (checksummed)
 * DIR/cp-0000000007/COMMITTED      written last, by process 0: the job's description
 * DIR/checkpoint.request           created by {@link #request()}; consumed by the job's process 0
 * DIR/reached-RUN                  the iteration that comes next in run RUN, as its process 0 last
 *                                  recorded it (every 100 ms and when it ends): what a retry redoes
 * DIR/job                          "running ..." from the job's Checkpoints.init, touched by its
 *                                  process 0 every 100 ms; "ended ..." once it closed them
 * </pre>
 * Cheap: each call lists the directory once.
 */
public final class CheckpointDirectory {
    /** The file whose appearance asks the running job for a checkpoint. */
    public static final String REQUEST_FILE = "checkpoint.request";
    /** The job's state: {@code running ...} (touched every 100 ms by its process 0) or {@code ended ...}. */
    public static final String JOB_FILE = "job";
    /** A running job's file not touched for this long belongs to a job that stopped without ending. */
    static final java.time.Duration STALE = java.time.Duration.ofSeconds(5);

    /** What {@link #job()} found. */
    public enum JobState {
        /** No job has started its checkpoints here yet (no {@value #JOB_FILE} file). */
        NONE,
        /** A job is running: its process 0 touched the file within the last 5 s. */
        RUNNING,
        /** The job closed its checkpoints (it ended, successfully or not). */
        ENDED,
        /** The file says running but was not touched for 5 s: the job was killed or its host lost. */
        STOPPED
    }
    static final String COMMITTED = "COMMITTED";
    private static final String PREFIX = "cp-";

    private final Path dir;

    /** @param dir the directory (need not exist) */
    public CheckpointDirectory(Path dir) { this.dir = dir.toAbsolutePath(); }

    /** @return the directory */
    public Path path() { return dir; }

    /** @return the file of run {@code run}'s progress (its id reduced to letters, digits, '.', '_' and '-') */
    Path reachedFile(String run) { return dir.resolve("reached-" + run.replaceAll("[^A-Za-z0-9._-]", "_")); }

    Path seqDir(long seq) { return dir.resolve(String.format("%s%010d", PREFIX, seq)); }

    /** @return the committed (complete) checkpoints, newest first; empty if the directory does not exist */
    public List<Long> committed() { return list(true); }

    /** @return the checkpoints begun but never committed, newest first */
    public List<Long> incomplete() { return list(false); }

    private List<Long> list(boolean committed) {
        List<Long> seqs = new ArrayList<>();
        for (long s : all()) if (Files.exists(seqDir(s).resolve(COMMITTED)) == committed) seqs.add(s);
        return seqs;
    }

    /** @return the newest checkpoint begun, committed or not (0 if none) */
    public long newestBegun() {
        List<Long> all = all();
        return all.isEmpty() ? 0 : all.get(0);
    }

    /** @return every checkpoint directory's number, newest first */
    List<Long> all() {
        List<Long> seqs = new ArrayList<>();
        if (!Files.isDirectory(dir)) return seqs;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, PREFIX + "*")) {
            for (Path p : ds) {
                if (!Files.isDirectory(p)) continue;
                try {
                    seqs.add(Long.parseLong(p.getFileName().toString().substring(PREFIX.length())));
                } catch (NumberFormatException e) {
                    // not ours
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list the checkpoint directory " + dir + ": " + e, e);
        }
        seqs.sort(Comparator.reverseOrder());
        return seqs;
    }

    /**
     * @param seq a checkpoint
     * @return the description its commit mark holds (program, nprocs, lpf4j, seq, superstep, written), if committed
     */
    public Optional<String> description(long seq) {
        try {
            return Optional.of(Files.readString(seqDir(seq).resolve(COMMITTED)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** @return the job's file ({@value #JOB_FILE}) */
    Path jobFile() { return dir.resolve(JOB_FILE); }

    /**
     * The state of the job that writes into this directory, from its {@value #JOB_FILE} file.
     * One read of a small file.
     *
     * @return the state
     */
    public JobState job() {
        Path f = jobFile();
        try {
            java.time.Instant touched = Files.getLastModifiedTime(f).toInstant();
            String text = Files.readString(f);
            if (text.startsWith("ended")) return JobState.ENDED;
            return touched.plus(STALE).isBefore(java.time.Instant.now()) ? JobState.STOPPED : JobState.RUNNING;
        } catch (java.nio.file.NoSuchFileException e) {
            return JobState.NONE;
        } catch (IOException e) {
            return JobState.NONE; // unreadable for a moment (being replaced): treat as unknown
        }
    }

    /** @return the first line of the job's {@value #JOB_FILE} file (e.g. "ended 2026-...Z"), or "" */
    public String jobLine() {
        try {
            return Files.readString(jobFile()).lines().findFirst().orElse("");
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * Removes every checkpoint in the directory, the progress file of run {@code run} and the job's
     * {@value #JOB_FILE} file: what a job that ended well and needs no restart leaves behind (other
     * files stay). Call it after the job closed its checkpoints, or their closing writes the job
     * file again. Each checkpoint
     * loses its commit mark first, so that one half removed reads as incomplete, never as complete.
     * Cost: one listing of the directory and of each checkpoint.
     *
     * @param run the run whose {@code reached-} file goes too
     * @return the checkpoints that could not be removed wholly (their numbers), empty when all went
     */
    public List<Long> removeAll(String run) {
        List<Long> left = new ArrayList<>();
        for (long seq : all()) if (!delete(seq)) left.add(seq);
        try {
            Files.deleteIfExists(reachedFile(run));
            Files.deleteIfExists(jobFile());
        } catch (IOException e) {
            // only a message would have read them
        }
        return left;
    }

    /** Removes checkpoint {@code seq}, its commit mark first; @return whether it is gone */
    boolean delete(long seq) {
        Path d = seqDir(seq);
        try {
            Files.deleteIfExists(d.resolve(COMMITTED));
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(d)) {
                for (Path p : ds) Files.deleteIfExists(p);
            }
            Files.deleteIfExists(d);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Asks the job writing into this directory for a checkpoint at its next checkpoint point
     * (its process 0 looks for the request every 100 ms).
     *
     * @throws IOException if the directory does not exist or the request cannot be written
     */
    public void request() throws IOException {
        if (!Files.isDirectory(dir)) throw new java.nio.file.NoSuchFileException(dir + " (no checkpoint directory)");
        Files.writeString(dir.resolve(REQUEST_FILE), "requested by pid " + ProcessHandle.current().pid() + "\n");
    }

    /** Removes a request no job will take (the job ended), so that none is left behind; best effort. */
    public void withdrawRequest() {
        try {
            Files.deleteIfExists(dir.resolve(REQUEST_FILE));
        } catch (IOException e) {
            // a leftover request is discarded by the next job's Checkpoints.init
        }
    }
}
