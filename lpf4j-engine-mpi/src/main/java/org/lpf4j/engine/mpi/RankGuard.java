package org.lpf4j.engine.mpi;

import org.lpf4j.spi.kit.LaunchedHost;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Names the rank that dies first (SIGKILL, the kernel's OOM killer, a crash) while its job runs.
 * MPICH's Hydra reports only "Killed (signal 9)" and the OS pid of some process of the job, not
 * necessarily the dead one, and no rank; Open MPI's {@code mpirun} names the rank itself.
 *
 * <p>Before MPI starts, each rank started by a launcher (its rank is in the environment:
 * {@code PMI_RANK}, {@code OMPI_COMM_WORLD_RANK}, {@code PMIX_RANK} or {@code SLURM_PROCID}) starts
 * a guard: a {@code /bin/sh} that reads one line from a pipe whose writing end only this JVM holds.
 * A JVM that ends normally (its shutdown hooks run: return from {@code main}, {@code System.exit},
 * SIGTERM) writes {@code bye} first and the guard ends silently. If the JVM dies without its hooks,
 * the kernel closes the pipe and the guard reads end-of-file. The launcher then kills the other
 * ranks, whose guards wake too, and on a busy machine the dead rank's guard may run last (seen in
 * CI: Hydra's clean-up beat it). So the ranks of a host share a {@link DeathLatch}, in which the
 * kernel itself records the first death, before any guard or launcher can notice it; a guard
 * reports only if the latch names its rank. Where there is no latch (one rank on the host, a
 * launcher that gives no local ranks, no System V IPC) the guards hold an election instead: each
 * tries to create the file {@code first} in a directory shared by the job's ranks on this host
 * (exclusive create, {@code set -C}), and only the winner reports; usually, not surely, the dead
 * rank's guard wakes first. The
 * report, {@code lpf4j mpi: rank R (pid N on host H) died ...}:
 * <ul>
 *   <li>under {@code lpf run --engine mpi} and the engine's tests ({@link MpiLauncher#commandReportingDeaths})
 *       the directory is {@value #REPORTS}, made by the launching side, and the winner writes its
 *       line into {@code first}, which the launching side prints after the launcher has ended (Hydra
 *       may stop forwarding the ranks' output as soon as one dies: measured, 1 run in 2 at p = 4
 *       lost a line written to standard error);</li>
 *   <li>under a launcher started by hand, the directory is {@code lpf4j-mpi-<launcher daemon pid>}
 *       in the temporary directory, and the winner prints its line on standard error (forwarded if
 *       the launcher still reads); the last of the host's ranks to end normally removes the
 *       directory, and a JVM that starts removes those of jobs whose daemon is gone.</li>
 * </ul>
 * The guard runs in a session of its own ({@code setsid}), so the launcher's clean-up (Hydra
 * SIGKILLs the process group of every rank it started) does not kill it; it ends as soon as it has
 * read, so it outlives its JVM by milliseconds.
 *
 * <p>Cost: one small process per rank at start (started before {@code MPI_Init}, so MPI never
 * sees a fork), one pipe; nothing per sync. If the guard cannot start, one line says so and the
 * job runs without it.
 */
final class RankGuard {
    /** The environment variables that carry a launched process's rank, in the order they are read. */
    static final List<String> RANK_VARIABLES = java.util.Arrays.stream(org.lpf4j.spi.kit.LaunchVariables.values())
            .map(org.lpf4j.spi.kit.LaunchVariables::rankVariable).toList();
    /** The directory the launching side made for the report ({@link MpiLauncher#commandReportingDeaths}). */
    static final String REPORTS = "LPF_MPI_REPORTS";
    /** The winner's file in the directory. */
    static final String FIRST = "first";
    /**
     * The file a rank that arrived writes into the directory when a sync deadline passed
     * ({@link SyncDeadline}): the ranks that did not arrive are then killed by the launcher, which
     * is the reported end of the job, not a death to report; every guard that wakes stays silent.
     */
    static final String DEADLINE = "deadline";
    /**
     * $1 the message, $2 the election directory, $3 "file" (write the message into the winner's
     * file) or "print" (create it, then print the message on standard error). Without the
     * directory (another host, or removed) a guard prints. $4 the {@link DeathLatch}'s set id, $5 its
     * result semaphore, $6 the result that names this rank (all empty without a latch): a guard whose
     * rank the latch names reports without an election; one whose latch names another rank is silent.
     */
    private static final String SCRIPT = "read -r line; [ \"$line\" = bye ] && exit 0; first=;"
            // After a sync deadline the ranks that arrived reported the job's end; the launcher killed the rest.
            + " [ -f \"$2/" + DEADLINE + "\" ] && exit 0;"
            // With a latch: the kernel recorded the first death; only that rank's guard speaks.
            + " if [ -n \"$4\" ]; then"
            + " won=$(ipcs -s -i \"$4\" 2>/dev/null | while read -r n v rest; do [ \"$n\" = \"$5\" ] && echo \"$v\"; done);"
            + " case \"$won\" in \"$6\") first=yes;; ''|0) ;; *) exit 0;; esac; fi;"
            + " if [ ! -d \"$2\" ]; then printf '%s\\n' \"$1\" >&2;"
            + " elif [ \"$3\" = file ]; then if [ -n \"$first\" ]; then printf '%s\\n' \"$1\" > \"$2/" + FIRST + "\";"
            + " else set -C; { printf '%s\\n' \"$1\" > \"$2/" + FIRST + "\"; } 2>/dev/null; fi;"
            + " elif [ -n \"$first\" ] || { set -C; : > \"$2/" + FIRST + "\"; } 2>/dev/null; then printf '%s\\n' \"$1\" >&2; fi";

    private static OutputStream toGuard;
    private static Path ownDirectory;
    private static DeathLatch latch;
    private static boolean saidGoodbye;
    /** The directory this rank's guard reports into, or null without a guard. */
    private static Path reportDirectory;

    private RankGuard() {}

    /** Starts this JVM's guard if a launcher started it and the guard is not running yet. */
    static synchronized void start() {
        if (toGuard != null) return;
        String rank = rank();
        if (rank == null || !Files.isExecutable(Path.of("/bin/sh"))) return;
        String message = "lpf4j mpi: rank " + rank + " (pid " + ProcessHandle.current().pid() + " on host " + hostName()
                + ") died while the job was running (killed, crashed or out of memory: it ended without shutting down);"
                + " the launcher ends the job";
        try {
            String reports = System.getenv(REPORTS);
            boolean launchingSide = reports != null && !reports.isBlank();
            Path dir;
            if (launchingSide) {
                dir = Path.of(reports);
            } else {
                // The launcher's daemon (the ranks' parent), with its start time: a reused pid is another job.
                String daemon = ProcessHandle.current().parent().map(h -> h.pid() + "-"
                        + h.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L)).orElse("0");
                Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
                removeStale(tmp);
                dir = tmp.resolve(PREFIX + daemon);
                Files.createDirectories(dir);
                ownDirectory = dir;
            }
            List<String> cmd = new ArrayList<>();
            // Its own session: Hydra's clean-up kills the process group of each rank it started.
            for (String setsid : List.of("/usr/bin/setsid", "/bin/setsid")) {
                if (Files.isExecutable(Path.of(setsid))) {
                    cmd.add(setsid);
                    break;
                }
            }
            int[] local = LaunchedHost.localRank();
            latch = local == null || !Files.isDirectory(dir) ? null : DeathLatch.join(dir, local[0], local[1]);
            cmd.addAll(List.of("/bin/sh", "-c", SCRIPT, "lpf4j-rank-guard", message, dir.toString(),
                    launchingSide ? "file" : "print", latch == null ? "" : Integer.toString(latch.id()),
                    latch == null ? "" : Integer.toString(latch.result()),
                    latch == null ? "" : Integer.toString(latch.mark())));
            reportDirectory = dir;
            Process guard = new ProcessBuilder(cmd)
                    .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            toGuard = guard.getOutputStream();
        } catch (IOException e) {
            System.err.println("lpf4j mpi: rank " + rank + " cannot start its guard (" + e + "): if it dies, only the"
                    + " launcher reports it");
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(RankGuard::goodbye, "lpf-mpi-rank-guard"));
    }

    /**
     * A sync deadline passed in a section of this rank, which arrived ({@link SyncDeadline}): the
     * section's failure names the ranks that did not, and the launcher will kill them (and maybe
     * this one). No guard of this host reports those kills as deaths ({@link #DEADLINE}).
     */
    static synchronized void deadlinePassed() {
        if (reportDirectory != null) {
            try {
                Files.writeString(reportDirectory.resolve(DEADLINE), "", StandardCharsets.US_ASCII);
            } catch (IOException | RuntimeException e) {
                // no marker: a guard may report a killed rank as died, which it also is
            }
        }
        goodbye();
    }

    /**
     * This JVM ends normally: its death is no longer to be recorded, the guard ends without a word,
     * and the last of the host's ranks to end removes the directory (and the latch removed itself).
     * Only the first call acts.
     */
    static synchronized void goodbye() {
        if (toGuard == null || saidGoodbye) return;
        saidGoodbye = true;
        boolean last = latch == null || latch.ended();
        try {
            toGuard.write("bye\n".getBytes(StandardCharsets.US_ASCII));
            toGuard.close();
        } catch (IOException e) {
            // the guard is gone already: nothing to tell it
        }
        if (ownDirectory != null && last) {
            try {
                Files.deleteIfExists(ownDirectory.resolve(DeathLatch.KEY_FILE));
                Files.deleteIfExists(ownDirectory.resolve(FIRST));
                Files.deleteIfExists(ownDirectory.resolve(DEADLINE));
                Files.deleteIfExists(ownDirectory);
            } catch (IOException e) {
                // another rank of the job removed it, or a guard is writing: left for the next job's start
            }
        }
    }

    private static final String PREFIX = "lpf4j-mpi-";
    private static final java.util.regex.Pattern OWN = java.util.regex.Pattern.compile(PREFIX + "(\\d+)-(\\d+)");

    /**
     * Removes the election directories of jobs whose launcher daemon is gone (a job in which a
     * rank died keeps its directory: no JVM of it ended normally). Errors are ignored: a directory
     * of another user, or one removed meanwhile, is not this JVM's business.
     *
     * @param tmp the temporary directory
     */
    static void removeStale(Path tmp) {
        try (var entries = Files.newDirectoryStream(tmp, PREFIX + "*")) {
            for (Path d : entries) {
                java.util.regex.Matcher m = OWN.matcher(d.getFileName().toString());
                if (!m.matches()) continue;
                long pid = Long.parseLong(m.group(1)), start = Long.parseLong(m.group(2));
                boolean running = ProcessHandle.of(pid).map(h -> h.info().startInstant()
                        .map(java.time.Instant::toEpochMilli).orElse(0L) == start).orElse(false);
                if (running) continue;
                DeathLatch.removeFor(d);
                try {
                    Files.deleteIfExists(d.resolve(DeathLatch.KEY_FILE));
                    Files.deleteIfExists(d.resolve(FIRST));
                    Files.deleteIfExists(d.resolve(DEADLINE));
                    Files.deleteIfExists(d);
                } catch (IOException e) {
                    // not ours, or removed meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            // no listing: nothing removed
        }
    }

    /** @return the rank a launcher gave this process, or null if none did */
    static String rank() {
        for (String v : RANK_VARIABLES) {
            String r = System.getenv(v);
            if (r != null && r.strip().matches("\\d+")) return r.strip();
        }
        return null;
    }

    /** @return the host name (the kernel's, so no name service is asked) */
    static String hostName() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException | RuntimeException e) {
            String h = System.getenv("HOSTNAME");
            return h == null ? "?" : h;
        }
    }
}
