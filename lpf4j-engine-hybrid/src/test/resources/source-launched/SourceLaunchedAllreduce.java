import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.coll.Collectives;
import org.lpf4j.coll.Reducer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Started with the Java source launcher ({@code java -cp ... SourceLaunchedAllreduce.java P}) in
 * every rank: this class, its SPMD lambda and its Reducer lambda live in the launcher's in-memory
 * class loader, which only the thread context loader names. Prints the sum of squares 1..P.
 */
public class SourceLaunchedAllreduce {
    public static void main(String[] args) {
        int p = Integer.parseInt(args[0]);
        Lpf.root().exec(p, (Spmd) ctx -> sumOfSquares(ctx), Args.NONE);
    }

    static void sumOfSquares(Context ctx) {
        int s = ctx.pid(), p = ctx.nprocs();
        ctx.resizeMemoryRegister(2);
        ctx.resizeMessageQueue(2 * p + 2);
        ctx.sync();
        Collectives coll = Collectives.init(ctx, 1, 8, 8);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment x = arena.allocate(8);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            x.set(JAVA_LONG, 0, (long) (s + 1) * (s + 1));
            coll.allreduce(x, xs, 8, (Reducer) SourceLaunchedAllreduce::addInto);
            ctx.sync();
            ctx.deregister(xs);
            if (s == 0) System.out.println("source-launched allreduce on " + p + " processes: " + x.get(JAVA_LONG, 0));
        } finally {
            coll.close();
        }
    }

    /** The program's own operator (a method reference is a lambda too: it names this class when it crosses). */
    static void addInto(long n, MemorySegment array, long offset, MemorySegment value, long valueOffset) {
        long sum = value.get(JAVA_LONG, valueOffset);
        for (long i = 0; i < n; i++) sum += array.get(JAVA_LONG, offset + 8 * i);
        value.set(JAVA_LONG, valueOffset, sum);
    }
}
