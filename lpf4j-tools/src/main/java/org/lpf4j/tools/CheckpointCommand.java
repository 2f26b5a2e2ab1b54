package org.lpf4j.tools;

import org.lpf4j.cr.CheckpointDirectory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code lpf checkpoint DIR}: asks the job that writes checkpoints into DIR ({@code lpf run
 * --checkpoint-dir DIR}) for a checkpoint now, as LAM's {@code lamcheckpoint} does, and waits until
 * it is committed (at most {@code --wait}); {@code --list} only lists the complete checkpoints.
 * The job takes it at its next checkpoint point and commits it at a later one, so the wait is a
 * few of the program's supersteps plus the write; the command reports the first checkpoint begun
 * after the request that is committed. The request is made once the job has started its
 * checkpoints (its {@code Checkpoints.init} discards older requests). A job that has ended (or was killed) is said so at once,
 * from the directory's {@code job} file ({@link CheckpointDirectory#job()}), instead of waiting.
 * Exit status 0 when a new checkpoint was committed (or listed), {@value ProgramFailure#EXIT_CODE}
 * if none came in time or the job is not running.
 */
@Command(name = "checkpoint", mixinStandardHelpOptions = true,
        description = "Asks a running job (lpf run --checkpoint-dir DIR) for a checkpoint now, or lists DIR's checkpoints.")
public class CheckpointCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR", description = "the job's checkpoint directory")
    Path dir;

    @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "60",
            description = "how long to wait for the checkpoint to be committed (default ${DEFAULT-VALUE}; 0: do not wait)")
    double waitSeconds;

    @Option(names = "--list", description = "only list the complete checkpoints in DIR, newest first")
    boolean list;

    /** For picocli. */
    public CheckpointCommand() {}

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        CheckpointDirectory cd = new CheckpointDirectory(dir);
        if (!(waitSeconds >= 0)) throw new UsageException("lpf checkpoint: --wait " + waitSeconds + ": give 0 or more seconds");
        if (!dir.toFile().isDirectory()) throw new UsageException("lpf checkpoint: " + cd.path() + " is not a directory");
        if (list) {
            List<Long> committed = cd.committed();
            if (committed.isEmpty()) out.println("lpf checkpoint: no complete checkpoint in " + cd.path());
            for (long s : committed) out.println(s + ": " + cd.description(s).orElse("").strip().replace('\n', ' '));
            out.flush();
            return 0;
        }
        CheckpointDirectory.JobState state = cd.job();
        notRunning(cd, state);
        long deadline = System.nanoTime() + (long) (waitSeconds * 1e9);
        // A job not yet at its Checkpoints.init has no state, and init discards older requests: ask once it runs.
        while (state == CheckpointDirectory.JobState.NONE && System.nanoTime() < deadline) {
            Thread.sleep(100);
            state = cd.job();
            notRunning(cd, state);
        }
        // A checkpoint begun before the request (an interval one still being written) is not the one asked for.
        long newest = cd.newestBegun();
        try {
            cd.request();
        } catch (IOException e) {
            throw new UsageException("lpf checkpoint: cannot ask for a checkpoint in " + cd.path() + ": " + e.getMessage());
        }
        out.println("lpf checkpoint: asked the job writing into " + cd.path() + " for a checkpoint");
        out.flush();
        if (waitSeconds <= 0) return 0;
        while (System.nanoTime() < deadline) {
            // The state first: a job that committed the checkpoint and then ended shows the commit below.
            state = cd.job();
            List<Long> now = cd.committed();
            if (!now.isEmpty() && now.get(0) > newest) {
                long s = now.get(0);
                out.println("lpf checkpoint: checkpoint " + s + " committed: "
                        + cd.description(s).orElse("").strip().replace('\n', ' '));
                out.flush();
                return 0;
            }
            notRunning(cd, state);
            Thread.sleep(100);
        }
        throw new ProgramFailure("lpf checkpoint: no new checkpoint was committed in " + cd.path() + " within "
                + waitSeconds + " s (" + (state == CheckpointDirectory.JobState.NONE ? "no job has started its checkpoints"
                + " there: is a job with --checkpoint-dir " + cd.path() + " running?)" : "is the job calling its checkpoint"
                + " point?)"), null);
    }

    /**
     * Fails at once, saying so, when the directory's job has ended or stopped (its {@code job}
     * file); a directory where no job has started its checkpoints yet is waited for as before.
     */
    private static void notRunning(CheckpointDirectory cd, CheckpointDirectory.JobState state) {
        String why = switch (state) {
            case ENDED -> "the job that wrote into " + cd.path() + " has ended (" + cd.jobLine() + ")";
            case STOPPED -> "the job that wrote into " + cd.path() + " stopped without ending (killed, or its host lost):"
                    + " its process 0 has not marked it running for 5 s (" + cd.jobLine() + ")";
            case NONE, RUNNING -> null;
        };
        if (why == null) return;
        cd.withdrawRequest();
        List<Long> committed = cd.committed();
        throw new ProgramFailure("lpf checkpoint: " + why + "; no checkpoint taken. "
                + (committed.isEmpty() ? "It left no complete checkpoint." : "Its last complete checkpoint is "
                + committed.get(0) + ": " + cd.description(committed.get(0)).orElse("").strip().replace('\n', ' ')
                + " (lpf run --resume --checkpoint-dir " + cd.path() + " continues from it)."), null);
    }
}
