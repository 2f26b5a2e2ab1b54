package org.lpf4j.tools;

import org.lpf4j.spi.BootModule;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;
import org.lpf4j.spi.boot.BootEnvironment;
import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.kit.Slurm;
import org.lpf4j.tools.boot.BootCheck;
import org.lpf4j.tools.boot.BootJobs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code lpf boot-test}: the boot framework's smoke test and benchmark. Every process publishes
 * its host name and a value (1 KiB by default), commits, takes part in a collect-data fence and
 * checks every process's values; repeated, the commit + fence time's median printed.
 * <ul>
 *   <li>Started by a launcher ({@code mpirun -n N lpf boot-test}: PMIx variables set), or as one
 *       rank of a {@code tcp} job ({@code LPF_BOOT_TCP_*} set), or with {@code --worker}: runs as
 *       one process of that job, through the boot module selected as usual.</li>
 *   <li>Otherwise starts the jobs itself on this machine: for each {@code -p} and each of
 *       {@code --modules}, N JVMs through {@code tcp} (loopback, random job key) and/or under
 *       {@code mpirun} through {@code pmix}, and prints one table.</li>
 * </ul>
 * Exit status 0 when every job passed, {@value ProgramFailure#EXIT_CODE} otherwise.
 */
@Command(name = "boot-test", mixinStandardHelpOptions = true,
        description = "Starts N processes that exchange values through the boot framework (put/commit/fence/get), checks them and times the fence.")
public class BootTestCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = {"-p", "--procs"}, split = ",", paramLabel = "N", description = "job sizes (default: 4)")
    List<Integer> procs = new ArrayList<>(List.of(4));

    @Option(names = "--modules", split = ",", paramLabel = "M", description = "boot modules to start jobs with: tcp, pmix (default: tcp)")
    List<String> modules = new ArrayList<>(List.of("tcp"));

    @Option(names = "--repeats", paramLabel = "R", description = "measured rounds (default: ${DEFAULT-VALUE})")
    int repeats = 21;

    @Option(names = "--warmup", paramLabel = "W", description = "unmeasured rounds first (default: ${DEFAULT-VALUE})")
    int warmup = 500;

    @Option(names = "--value-size", paramLabel = "BYTES", description = "size of each process's value (default: ${DEFAULT-VALUE})")
    int valueSize = 1024;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "limit per job (default: ${DEFAULT-VALUE})")
    int timeoutSeconds = 120;

    @Option(names = "--worker", description = "run as one process of a job (implied under a launcher)")
    boolean worker;

    @Option(names = "--module", paramLabel = "M", description = "with --worker: the boot module (default: the selected one)")
    String module;

    /** For picocli. */
    public BootTestCommand() {}

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (repeats < 1 || warmup < 0 || valueSize < 0 || timeoutSeconds < 1) {
            throw new UsageException("lpf boot-test: --repeats ≥ 1, --warmup ≥ 0, --value-size ≥ 0, --timeout ≥ 1");
        }
        if (worker || System.getenv("PMIX_NAMESPACE") != null || System.getenv(BootEnvironment.TCP_RANK) != null) return work();
        String tasks = System.getenv(Slurm.STEP_NUM_TASKS); // only a task of an srun step has it
        if (tasks != null && !tasks.strip().equals("1")) {
            // else every task would start a boot test of its own
            throw new UsageException("lpf boot-test: this is one of " + tasks.strip() + " tasks of an srun step without PMIx;"
                    + " run srun --mpi=pmix ... lpf boot-test (srun --mpi=list shows the plugins this Slurm has)");
        }
        return launch();
    }

    private int work() {
        PrintWriter out = spec.commandLine().getOut();
        BootModule m;
        try {
            m = module == null ? Components.installed().select(Framework.BOOT, BootModule.class)
                    : (BootModule) Components.installed().byName(Framework.BOOT, module);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new UsageException("lpf boot-test: " + e.getMessage());
        }
        try (BootSession s = m.openSession()) {
            BootCheck.Result r = BootCheck.run(s, warmup, repeats, valueSize);
            if (s.rank() == 0) out.println(r.line());
        } catch (BootException | IllegalStateException e) {
            throw new ProgramFailure("lpf boot-test (" + m.name() + "): " + e.getMessage(), e);
        }
        out.flush();
        return 0;
    }

    private int launch() throws IOException, InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        for (String m : modules) {
            if (!m.equals("tcp") && !m.equals("pmix")) throw new UsageException("lpf boot-test: --modules takes tcp and pmix, not '" + m + "'");
        }
        for (int p : procs) if (p < 1 || p > 256) throw new UsageException("lpf boot-test: -p " + p + " not in [1, 256]");
        String mpirun = BootJobs.mpirun();
        if (modules.contains("pmix") && mpirun == null) {
            throw new UsageException("lpf boot-test: --modules pmix needs mpirun on the PATH (Open MPI, PMIx-enabled)");
        }
        out.printf("lpf boot-test: commit + collect-data fence, every process publishing its host name and %d bytes; "
                + "median of %d rounds after %d warm-up rounds, at rank 0%n", valueSize, repeats, warmup);
        out.printf("%6s", "p");
        for (String m : modules) out.printf(" %16s", m + " (µs)");
        if (modules.size() == 2) out.printf(" %12s", modules.get(0) + "/" + modules.get(1));
        out.println();
        out.flush();
        boolean allOk = true;
        for (int p : procs) {
            Map<String, BootCheck.Result> row = new LinkedHashMap<>();
            for (String m : modules) {
                BootJobs.Outcome o = m.equals("tcp") ? BootJobs.tcp(p, warmup, repeats, valueSize, timeoutSeconds * 1000L)
                        : BootJobs.pmix(mpirun, p, warmup, repeats, valueSize, timeoutSeconds * 1000L);
                if (o.result() == null) {
                    allOk = false;
                    spec.commandLine().getErr().println("lpf boot-test: the " + m + " job of " + p + " processes failed:\n" + o.output());
                    spec.commandLine().getErr().flush();
                }
                row.put(m, o.result());
            }
            out.printf("%6d", p);
            for (String m : modules) {
                BootCheck.Result r = row.get(m);
                out.printf(" %16s", r == null ? "FAILED" : String.format("%.1f", r.medianNanos() / 1e3));
            }
            if (modules.size() == 2 && row.get(modules.get(0)) != null && row.get(modules.get(1)) != null) {
                out.printf(" %12.2f", (double) row.get(modules.get(0)).medianNanos() / row.get(modules.get(1)).medianNanos());
            }
            out.println();
            out.flush();
        }
        if (!allOk) throw new ProgramFailure("lpf boot-test: some jobs failed (see above)", null);
        out.println("lpf boot-test: every value checked on every process: OK");
        out.flush();
        return 0;
    }
}
