package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.Lpf;
import org.lpf4j.spi.BootModule;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;
import org.lpf4j.spi.boot.BootSession;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Started as a separate JVM (no MPI launcher) by {@link BootHookTest}: opens the boot session the
 * environment describes (tcp), hooks a section over it with {@link MpiEngine#init(BootSession)},
 * and runs a ring of puts: each pid's input goes to the next pid's output. Prints
 * {@code BOOTHOOK OK rank value} and exits 0, or prints the failure and exits 1.
 */
public final class BootHookMain {
    private BootHookMain() {}

    public static void main(String[] args) {
        int status = 0;
        BootModule m = Components.installed().select(Framework.BOOT, BootModule.class);
        try (BootSession s = m.openSession(); Arena a = Arena.ofShared()) {
            int rank = s.rank(), size = s.size();
            MemorySegment in = a.allocate(8), out = a.allocate(8);
            in.set(ValueLayout.JAVA_LONG, 0, 1000 + rank);
            Lpf.hook(MpiEngine.init(s), ctx -> {
                if (ctx.pid() != rank || ctx.nprocs() != size) {
                    throw new AssertionError("pid/nprocs " + ctx.pid() + "/" + ctx.nprocs() + ", boot rank " + rank + "/" + size);
                }
                InputRing.run(ctx);
            }, Args.of(in, out));
            long got = out.get(ValueLayout.JAVA_LONG, 0), expect = 1000 + (rank + size - 1) % size;
            if (got != expect) throw new AssertionError("rank " + rank + " got " + got + ", expected " + expect);
            System.out.println("BOOTHOOK OK " + rank + " " + got + " " + Mpi.load("").abiName());
        } catch (Throwable t) {
            t.printStackTrace(System.out);
            status = 1;
        }
        System.out.flush();
        // MPI stays initialised (the hook leaves it so); exiting without MPI_Finalize is what a
        // singleton whose peers may already be gone can do safely.
        Runtime.getRuntime().halt(status);
    }
}
