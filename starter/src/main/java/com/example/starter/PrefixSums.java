package com.example.starter;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Parallel prefix sums of 1, 2, ..., n: every process sums its block, sends the sum to every
 * process with one put each, and after one sync adds the sums of the processes before it.
 * One superstep of a (p-1)-relation of 8-byte messages; local work n/p.
 *
 * <p>Run it as {@code java ... com.example.starter.PrefixSums [p]} (its {@code main}) or with
 * {@code lpf run -p 4 -cp target/classes com.example.starter.PrefixSums} (as an {@link Spmd}).
 */
public final class PrefixSums implements Spmd {
    /** Numbers per process. */
    static final long BLOCK = 1_000_000;

    @Override
    public void run(Context ctx) {
        int s = ctx.pid(), p = ctx.nprocs();
        ctx.resizeMemoryRegister(2);
        ctx.resizeMessageQueue(2L * p);       // p puts sent, p received
        ctx.sync();

        long first = s * BLOCK + 1, last = (s + 1) * BLOCK;
        long mySum = 0;
        for (long v = first; v <= last; v++) mySum += v;

        MemorySegment sums = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG, p);
        MemorySegment mine = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG);
        mine.set(ValueLayout.JAVA_LONG, 0, mySum);
        Memslot sumsSlot = ctx.registerGlobal(sums);
        Memslot mineSlot = ctx.registerLocal(mine);
        ctx.sync();                           // the global slot is usable everywhere

        for (int k = 0; k < p; k++) ctx.put(mineSlot, 0, k, sumsSlot, 8L * s, 8);
        ctx.sync();                           // every process has every block's sum

        long before = 0;
        for (int k = 0; k < s; k++) before += sums.getAtIndex(ValueLayout.JAVA_LONG, k);
        long prefixAtLast = before + mySum;   // 1 + 2 + ... + last
        if (prefixAtLast != last * (last + 1) / 2) {
            throw new AssertionError("pid " + s + ": prefix sum " + prefixAtLast + " != " + last * (last + 1) / 2);
        }
        if (s == p - 1) System.out.println("PrefixSums: " + p + " processes, 1 + ... + " + last + " = " + prefixAtLast + " (checked)");
        ctx.deregister(mineSlot);
        ctx.deregister(sumsSlot);
    }

    /** @param args the number of processes (default 4) */
    public static void main(String[] args) {
        int p = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        Lpf.root().exec(p, new PrefixSums());
    }
}
