package org.lpf4j.spi.kit;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * What Slurm tells this JVM through its environment, and which MPI plugins its {@code srun} has.
 * Two situations look alike and must not be confused: a process <em>inside an allocation</em>
 * ({@code salloc}'s shell, an {@code sbatch} script: {@code SLURM_JOB_ID} set, and even
 * {@code SLURM_NTASKS} = the allocation's tasks, but no step) is not part of a parallel job and
 * should start one with {@code srun}; a process that is <em>task k of an srun step</em>
 * ({@code SLURM_STEP_ID}, {@code SLURM_PROCID} and {@code SLURM_STEP_NUM_TASKS} set) is one rank.
 * The batch script runs in the batch step, which Slurm gives a {@code SLURM_PROCID} of 0 but no
 * {@code SLURM_STEP_ID}: it counts as inside the allocation. The one home of these rules for
 * every engine that launches with {@code srun} (mpi, hybrid, net). Cheap, except
 * {@link #mpiPlugins} (one {@code srun --mpi=list}, once per JVM).
 */
public final class Slurm {
    private Slurm() {}

    /** The allocation's (job's) id: set inside an allocation and in its steps. */
    public static final String JOB_ID = "SLURM_JOB_ID";
    /** The step's id ({@link #STEPID} in older versions). */
    public static final String STEP_ID = "SLURM_STEP_ID";
    /** The step's id as older Slurm versions spell it. */
    public static final String STEPID = "SLURM_STEPID";
    /** A task's rank in its step. */
    public static final String PROCID = "SLURM_PROCID";
    /** The tasks of the step. */
    public static final String STEP_NUM_TASKS = "SLURM_STEP_NUM_TASKS";
    /** The allocation's nodes ({@link #NNODES} in older versions). */
    public static final String JOB_NUM_NODES = "SLURM_JOB_NUM_NODES";
    /** The allocation's nodes as older Slurm versions spell it. */
    public static final String NNODES = "SLURM_NNODES";

    /** @return whether this process is a task of an srun step (see the class comment) */
    public static boolean stepTask(UnaryOperator<String> env) {
        String step = env.apply(STEP_ID) != null ? env.apply(STEP_ID) : env.apply(STEPID);
        return step != null && !step.isBlank() && env.apply(PROCID) != null && env.apply(STEP_NUM_TASKS) != null;
    }

    /**
     * @return whether this process is the only task of a step: the shell of {@code srun --pty bash},
     *         from which {@code lpf run -p N} must start a step of its own, as from salloc's shell
     */
    public static boolean singleTaskStep(UnaryOperator<String> env) {
        return stepTask(env) && env.apply(STEP_NUM_TASKS).strip().equals("1");
    }

    /** @return whether this process runs inside a Slurm allocation without being a task of a step */
    public static boolean allocation(UnaryOperator<String> env) {
        return env.apply(JOB_ID) != null && !stepTask(env);
    }

    /** @return {@link #allocation} of this process's environment */
    public static boolean allocation() { return allocation(System::getenv); }

    /** @return the nodes of this process's allocation ({@code SLURM_JOB_NUM_NODES}, else {@code SLURM_NNODES}), 0 outside one */
    public static int allocationNodes() {
        for (String v : List.of(JOB_NUM_NODES, NNODES)) {
            String n = System.getenv(v);
            if (n != null && n.strip().matches("\\d{1,7}")) return Integer.parseInt(n.strip());
        }
        return 0;
    }

    /**
     * The start of every srun command line lpf4j runs (the options before the task count and the
     * program): a task that dies ends the step ({@code --kill-on-bad-exit}: Slurm's default lets the
     * others run on, and hang in their communication); one Ctrl-C ends it ({@code --quit-on-interrupt}:
     * srun's default wants two within a second); a JVM is not tied to one CPU ({@code --cpu-bind=none},
     * as mpirun's {@code --bind-to none}: its GC and JIT threads would share the program's core); and
     * from inside a step ({@code srun --pty bash}, {@link #stepTask}) the new step shares that step's
     * CPUs ({@code --overlap}).
     *
     * @param srun      the srun to run
     * @param mpiPlugin the MPI plugin the tasks boot through ({@code pmix}, {@code pmi2})
     * @return the command's start, mutable
     */
    public static List<String> srunCommand(String srun, String mpiPlugin) { return srunCommand(srun, mpiPlugin, System::getenv); }

    /** @return {@link #srunCommand(String, String)} for a process with the environment {@code env} */
    public static List<String> srunCommand(String srun, String mpiPlugin, UnaryOperator<String> env) {
        List<String> c = new ArrayList<>(List.of(srun, "--mpi=" + mpiPlugin, "--kill-on-bad-exit=1", "--quit-on-interrupt",
                "--cpu-bind=none"));
        if (stepTask(env)) c.add("--overlap");
        return c;
    }

    private static List<String> plugins;

    /**
     * @return the MPI plugins {@code srun --mpi=list} names (e.g. {@code pmix}, {@code pmi2},
     *         {@code none}), asked once per JVM (within 10 s), empty if srun does not answer
     */
    public static synchronized List<String> mpiPlugins() {
        if (plugins == null) plugins = parsePlugins(output("srun", "--mpi=list"));
        return plugins;
    }

    /** @return the plugin names in {@code srun --mpi=list}'s text (one indented name a line, after a header) */
    public static List<String> parsePlugins(String text) {
        List<String> names = new ArrayList<>();
        for (String line : text.lines().toList()) {
            String s = line.strip();
            if (s.startsWith("srun: ")) s = s.substring(6).strip(); // older versions prefix every line
            if (s.matches("[a-z][a-z0-9_]*")) names.add(s);
        }
        return List.copyOf(names);
    }

    /** @return what {@code command} prints (stdout and stderr) within 10 s, "" if it cannot run or takes longer */
    public static String output(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
            if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "";
            }
            return new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
