package org.lpf4j.engine.hybrid;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.engine.mpi.layered.NativeEnv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Every process of a hybrid section prints the CPUs its thread may use and Open MPI's yield
 * setting in its JVM's C environment: {@code CPUS pid=P node=N list=L yield=Y}.
 */
public final class CpuShareMain {
    private CpuShareMain() {}

    public static void main(String[] args) throws IOException {
        Context root = Lpf.root("hybrid");
        int p = root.probe().p();
        root.exec(p, ctx -> {
            String list = "?";
            try {
                for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                    if (line.startsWith("Cpus_allowed_list:")) list = line.substring(line.indexOf(':') + 1).strip();
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            String yield = NativeEnv.get("OMPI_MCA_mpi_yield_when_idle");
            String line = "CPUS pid=" + ctx.pid() + " node=" + ctx.pid() / Integer.getInteger("lpf.engine.hybrid.threads")
                    + " list=" + list + " yield=" + yield;
            System.out.println(line);
            ctx.sync();
        }, org.lpf4j.Args.NONE);
        System.out.println("CPUS DONE p=" + p);
    }
}
