package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Machine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * One {@code lpf run --profile DIR}: where the records go and the run's identity. It travels with
 * the wrapped SPMD function (serializable), so every process writes its own records into DIR,
 * whichever JVM it runs in; the JVM of pid 0, which started the section and sees it end after
 * every process has returned, then merges them ({@link #report}).
 *
 * <p><b>Crossing JVMs.</b> Each process, after the program returned, writes
 * {@code DIR/records-<run>-pid<N>.csv} (to a temporary name, then renamed); the engine's end of
 * the section waits for every process's SPMD function to return, so when {@code exec} returns on
 * pid 0 the files are there. DIR must therefore be one directory for all processes: a local
 * directory on one machine, a shared file system across machines. {@link #report} waits up to
 * {@value #WAIT_MILLIS} ms for files that are late (a network file system) and names the pids
 * whose records never came. It then deletes the per-process files.
 *
 * <p>Immutable.
 *
 * @param dir   the absolute directory of the records and pictures
 * @param runId distinguishes this run's per-process files from any other's in the same directory
 */
record Profile(String dir, String runId) implements Serializable {
    /** How long {@link #report} waits for the records of processes in other JVMs. */
    static final long WAIT_MILLIS = 10_000;

    /**
     * Checks the directory of {@code --profile DIR} before anything starts, and creates it if
     * only its last component is missing.
     *
     * @param option the option's value
     * @return a new run's profile in that directory (absolute)
     * @throws UsageException if DIR is not a directory and cannot be made one (its parent missing,
     *                        a file in the way), or is not writable
     */
    static Profile start(String option) {
        Path dir = check(option);
        if (!Files.isDirectory(dir)) {
            try {
                Files.createDirectory(dir);
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // another process of a job started by hand made it meanwhile; checked below
            } catch (IOException e) {
                throw new UsageException("lpf run: --profile " + option + ": cannot create the directory: " + e);
            }
        }
        if (!Files.isDirectory(dir)) throw new UsageException("lpf run: --profile " + option + ": exists and is not a directory");
        if (!Files.isWritable(dir)) throw new UsageException("lpf run: --profile " + option + ": the directory is not writable");
        return new Profile(dir.toString(), UUID.randomUUID().toString().substring(0, 8));
    }

    /**
     * Checks that {@link #start} can use or make the directory, making nothing.
     *
     * @return the directory
     * @throws UsageException if it is a file, an unwritable directory, or missing with its parent
     */
    static Path check(String option) {
        Path dir = Path.of(option).toAbsolutePath().normalize();
        if (Files.isDirectory(dir)) {
            if (!Files.isWritable(dir)) throw new UsageException("lpf run: --profile " + option + ": the directory is not writable");
            return dir;
        }
        if (Files.exists(dir)) throw new UsageException("lpf run: --profile " + option + ": exists and is not a directory");
        Path parent = dir.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            throw new UsageException("lpf run: --profile " + option + ": the parent directory " + parent
                    + " does not exist (DIR itself is created if missing; its parent must exist)");
        }
        return dir;
    }

    /** @return the file in which process {@code pid} leaves its records */
    Path recordFile(int pid) {
        return Path.of(dir, "records-" + runId + "-pid" + pid + ".csv");
    }

    /**
     * g and l for the predictions, asked of the section's context by every process <em>before</em>
     * its program runs ({@link Context#probe()} may be collective, and only then are all processes
     * sure to be there: after a failure a collective probe could wait forever). Usually read from
     * the probe cache; else measured once, and then the program's own {@code probe()} costs
     * nothing. Not part of the recorded times.
     *
     * @return the machine, or null if the probe failed (the records then carry no prediction)
     * @throws FatalException if the section failed meanwhile
     */
    static Machine machine(Context ctx) {
        try {
            return ctx.probe();
        } catch (FatalException e) {
            throw e;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * The end of one process's part of the section, after its program returned: ends its log and
     * writes the records file. Local: no communication.
     *
     * @param timed   the process's profiling context
     * @param machine what {@link #machine} returned at the start, or null
     */
    void save(ProfilingContext timed, Machine machine) {
        timed.finish().write(recordFile(timed.pid()), machine);
    }

    /**
     * Deletes the per-process record files of pids 0 to {@code p − 1} (after the merge, or after
     * a failed section, which has no profile). A file that cannot be deleted is left: harmless.
     */
    void discard(int p) {
        for (int q = 0; q < p; q++) {
            try {
                Files.deleteIfExists(recordFile(q));
            } catch (IOException e) {
                // a leftover per-process file is harmless
            }
        }
    }

    /**
     * Merges the records of processes 0 to {@code p − 1}, writes {@code DIR/supersteps.csv},
     * {@code DIR/timeline.png} and {@code DIR/timeline.svg}, and prints the summary. Call in pid
     * 0's JVM after the section returned normally. Cost: reading and writing O(p · supersteps)
     * rows, plus drawing the picture.
     *
     * @param p     the processes of the section
     * @param title what ran, for the picture's title (e.g. the class and engine)
     * @param out   where the summary goes
     */
    void report(int p, String title, PrintWriter out) {
        ProfileRecords records = ProfileRecords.read(this, p, WAIT_MILLIS);
        Path csv = Path.of(dir, "supersteps.csv"), png = Path.of(dir, "timeline.png"), svg = Path.of(dir, "timeline.svg");
        records.writeCsv(csv);
        TimelinePicture.write(records, title, png, svg);
        discard(p);
        out.print(records.summary(5, csv, png, svg));
        out.flush();
    }
}
