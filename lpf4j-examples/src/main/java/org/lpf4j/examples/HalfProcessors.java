package org.lpf4j.examples;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Machine;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The LPF specification's own example program: probe the machine, run on half of its processors
 * (rounded up), and let every process put {@code pid * 4} into its own place of process 0's
 * output; the caller then prints the output.
 */
public final class HalfProcessors {
    private HalfProcessors() {}

    /**
     * The SPMD function: one local slot for the value, one global slot for the output.
     *
     * @param ctx this process's context
     */
    public static void spmd(Context ctx) {
        int pid = ctx.pid(), nprocs = ctx.nprocs();
        MemorySegment output = ctx.args().output();
        MemorySegment x = Arena.ofAuto().allocate(ValueLayout.JAVA_INT);
        x.set(ValueLayout.JAVA_INT, 0, pid * 4);
        ctx.resizeMemoryRegister(2);
        ctx.resizeMessageQueue(nprocs + 1);
        ctx.sync();
        Memslot in = ctx.registerLocal(x);
        Memslot out = ctx.registerGlobal(output); // empty on pids other than 0
        ctx.sync();
        ctx.put(in, 0, 0, out, (long) pid * Integer.BYTES, Integer.BYTES);
        ctx.sync();
        ctx.deregister(in);
        ctx.deregister(out);
    }

    /**
     * Runs the example on {@code root}.
     *
     * @param root a root context
     * @return the output of process 0: {@code x[k] = 4k} for k below the number of processes
     */
    public static int[] run(Context root) {
        Machine machine = root.probe();
        int p = (machine.p() + 1) / 2;
        MemorySegment x = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, p);
        root.exec(p, HalfProcessors::spmd, Args.of(MemorySegment.NULL, x));
        return x.toArray(ValueLayout.JAVA_INT);
    }

    /**
     * Prints what the C example prints.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        Context root = Lpf.root();
        int machineP = root.probe().p();
        System.out.println("My assigned parallel computer has " + machineP + " processors.");
        System.out.println("I will now start an LPF SPMD section using " + (machineP + 1) / 2 + " processes.");
        int[] x = run(root);
        System.out.println("Done with SPMD section. Output from PID 0:");
        for (int i = 0; i < x.length; i++) System.out.println("x[ " + i + " ] = " + x[i]);
    }
}
