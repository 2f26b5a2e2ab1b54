package org.lpf4j.engine.hybrid;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.engine.mpi.layered.NativeEnv;

/**
 * Every process of a hybrid section prints the CPUs its thread may use and Open MPI's yield
 * setting in its JVM's C environment, {@code CPUS pid=P node=N list=L yield=Y}; after the section
 * rank 0 prints its main thread's CPUs, {@code CPUS DONE p=P main=L}.
 */
public final class CpuShareMain {
    private CpuShareMain() {}

    public static void main(String[] args) {
        Context root = Lpf.root("hybrid");
        int p = root.probe().p();
        root.exec(p, ctx -> {
            String list = java.util.Arrays.stream(org.lpf4j.engine.threads.kit.Cpus.allowedCpus())
                    .mapToObj(Integer::toString).collect(java.util.stream.Collectors.joining(","));
            String yield = NativeEnv.get("OMPI_MCA_mpi_yield_when_idle");
            String line = "CPUS pid=" + ctx.pid() + " node=" + ctx.pid() / Integer.getInteger("lpf.engine.hybrid.threads")
                    + " list=" + list + " yield=" + yield;
            System.out.println(line);
            ctx.sync();
        }, org.lpf4j.Args.NONE);
        System.out.println("CPUS DONE p=" + p + " main=" + java.util.Arrays.stream(org.lpf4j.engine.threads.kit.Cpus.allowedCpus())
                .mapToObj(Integer::toString).collect(java.util.stream.Collectors.joining(",")));
    }
}
