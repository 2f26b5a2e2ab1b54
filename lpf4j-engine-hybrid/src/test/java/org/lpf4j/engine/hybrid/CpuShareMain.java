package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.testkit.CEnv;
import org.lpf4j.engine.threads.group.Cpus;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Every process of a hybrid section prints the CPUs its thread may use and Open MPI's yield
 * setting in its JVM's C environment, {@code CPUS pid=P node=N list=L yield=Y}; after the section
 * rank 0 prints its main thread's CPUs, {@code CPUS DONE p=P main=L}.
 */
public final class CpuShareMain {
    private CpuShareMain() {}

    /** @return the calling thread's CPUs, comma-separated */
    private static String myCpus() {
        return Arrays.stream(Cpus.allowedCpus()).mapToObj(Integer::toString).collect(Collectors.joining(","));
    }

    public static void main(String[] args) {
        Context root = Lpf.root("hybrid");
        int p = root.probe().p();
        root.exec(p, ctx -> {
            String yield = CEnv.get("OMPI_MCA_mpi_yield_when_idle");
            System.out.println("CPUS pid=" + ctx.pid() + " node=" + ctx.pid() / Integer.getInteger("lpf.engine.hybrid.threads")
                    + " list=" + myCpus() + " yield=" + yield);
            ctx.sync();
        }, Args.NONE);
        System.out.println("CPUS DONE p=" + p + " main=" + myCpus());
    }
}
