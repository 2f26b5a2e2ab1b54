package org.lpf4j.spi.kit;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The one srun command line every engine starts its steps with ({@link Slurm#srunCommand}): the
 * plugin asked for, a step that ends with its first dead task or first Ctrl-C, unbound JVMs, and
 * {@code --overlap} exactly when the caller is itself a task of a step.
 */
class SrunCommandLineTest {
    private static final List<String> COMMON = List.of("--kill-on-bad-exit=1", "--quit-on-interrupt", "--cpu-bind=none");

    @Test
    void inAnAllocationTheStepHasTheCpusOfItsOwn() {
        Map<String, String> salloc = Map.of(Slurm.JOB_ID, "7", "SLURM_NTASKS", "4");
        List<String> c = Slurm.srunCommand("/usr/bin/srun", "pmi2", salloc::get);
        assertEquals(concat(List.of("/usr/bin/srun", "--mpi=pmi2"), COMMON), c);
    }

    @Test
    void fromInsideAStepTheNewStepSharesItsCpus() {
        Map<String, String> task = Map.of(Slurm.JOB_ID, "9", Slurm.PROCID, "0", Slurm.STEP_ID, "0", Slurm.STEP_NUM_TASKS, "1");
        List<String> c = Slurm.srunCommand("srun", "pmix", task::get);
        assertEquals(concat(concat(List.of("srun", "--mpi=pmix"), COMMON), List.of("--overlap")), c);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
