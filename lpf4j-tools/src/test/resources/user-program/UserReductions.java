import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.coll.Collectives;
import org.lpf4j.coll.Combiner;
import org.lpf4j.coll.Reducer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A user's program, compiled by UserClassesAcrossJvmsTest and loaded only through
 * {@code lpf run --class-path}: its lambdas exist in that class loader alone, so an engine that
 * resolves them through its own loader fails. Each process checks its own result.
 */
public class UserReductions implements Spmd {
    public UserReductions() {}

    @Override
    public void run(Context ctx) {
        int s = ctx.pid(), p = ctx.nprocs();
        ctx.resizeMemoryRegister(2);
        ctx.resizeMessageQueue(4 * p + 4);
        ctx.sync();
        Collectives coll = Collectives.init(ctx, 2, 8, 8L * p);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment x = arena.allocate(8L * p);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();

            x.set(JAVA_LONG, 0, (long) (s + 1) * (s + 1));
            Reducer plus = (n, array, offset, value, valueOffset) -> {
                long v = value.get(JAVA_LONG, valueOffset);
                for (long i = 0; i < n; i++) v += array.get(JAVA_LONG, offset + 8 * i);
                value.set(JAVA_LONG, valueOffset, v);
            };
            coll.allreduce(x, xs, 8, plus);
            ctx.sync();
            long squares = x.get(JAVA_LONG, 0);
            long expected = (long) p * (p + 1) * (2L * p + 1) / 6;
            if (squares != expected) throw new IllegalStateException("pid " + s + ": allreduce gave " + squares + ", not " + expected);

            for (int i = 0; i < p; i++) x.set(JAVA_LONG, 8L * i, contribution(s, i, p));
            Combiner max = (n, from, fromOffset, into, intoOffset) -> {
                for (long i = 0; i < n; i++) {
                    long a = from.get(JAVA_LONG, fromOffset + 8 * i), b = into.get(JAVA_LONG, intoOffset + 8 * i);
                    into.set(JAVA_LONG, intoOffset + 8 * i, Math.max(a, b));
                }
            };
            coll.allcombine(x, xs, p, 8, max);
            ctx.sync();
            long[] maxima = x.toArray(JAVA_LONG), want = new long[p];
            for (int i = 0; i < p; i++) for (int q = 0; q < p; q++) want[i] = Math.max(want[i], contribution(q, i, p));
            if (!Arrays.equals(maxima, want)) {
                throw new IllegalStateException("pid " + s + ": allcombine gave " + Arrays.toString(maxima) + ", not " + Arrays.toString(want));
            }
            ctx.deregister(xs);
            if (s == 0) System.out.println("user reductions on " + p + " processes: sum of squares " + squares + ", maxima " + Arrays.toString(maxima));
        } finally {
            coll.close();
        }
    }

    /** What process {@code s} contributes as element {@code i}: a different process holds each maximum. */
    static long contribution(int s, int i, int p) {
        return (s * 7L + i * 3L) % (p + 2);
    }
}
