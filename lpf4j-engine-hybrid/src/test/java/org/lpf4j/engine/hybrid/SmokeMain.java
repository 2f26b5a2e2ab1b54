package org.lpf4j.engine.hybrid;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A ring of puts and gets at every p up to the machine size: prints {@code SMOKE OK p=...} per p. */
public final class SmokeMain {
    private SmokeMain() {}

    public static void main(String[] args) {
        Context root = Lpf.root("hybrid");
        int max = root.probe().p();
        for (int p = 1; p <= max; p++) {
            final int pp = p;
            root.exec(p, ctx -> {
                int s = ctx.pid(), n = ctx.nprocs();
                if (n != pp) throw new AssertionError("nprocs " + n + " != " + pp);
                ctx.resizeMemoryRegister(2);
                ctx.resizeMessageQueue(4);
                ctx.sync();
                MemorySegment x = Arena.ofAuto().allocate(8L * n), y = Arena.ofAuto().allocate(8L * n);
                Memslot xs = ctx.registerGlobal(x), ys = ctx.registerGlobal(y);
                x.setAtIndex(ValueLayout.JAVA_LONG, s, 100 + s);
                ctx.sync();
                for (int round = 0; round < 3; round++) {
                    ctx.put(xs, 8L * s, (s + 1) % n, xs, 8L * s, 8);
                    ctx.get((s + n - 1) % n, xs, 8L * ((s + n - 1) % n), ys, 8L * ((s + n - 1) % n), 8);
                    ctx.sync();
                }
                int left = (s + n - 1) % n;
                if (x.getAtIndex(ValueLayout.JAVA_LONG, left) != 100 + left) throw new AssertionError("pid " + s + " put from " + left);
                if (y.getAtIndex(ValueLayout.JAVA_LONG, left) != 100 + left) throw new AssertionError("pid " + s + " get from " + left);
                ctx.deregister(xs);
                ctx.deregister(ys);
            }, org.lpf4j.Args.NONE);
            System.out.println("SMOKE OK p=" + p);
        }
    }
}
