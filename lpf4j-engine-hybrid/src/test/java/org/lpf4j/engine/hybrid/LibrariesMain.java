package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.bsmp.Bsmp;
import org.lpf4j.bsmp.BsmpMessage;
import org.lpf4j.coll.Algorithm;
import org.lpf4j.coll.Collectives;
import org.lpf4j.coll.Ops;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The collectives and BSMP libraries, unchanged, on the hybrid engine at every p of the machine:
 * broadcast, allgather, alltoall, allgatherv and alltoallv (variable sizes, some empty), reduce and
 * allreduce in all three variants (broadcast and reduce
 * at roots 0, p − 1 and p/2; the tree's groups must be the nodes) (direct and
 * two-phase use combining puts, also between nodes) checked against the sequential result, and BSMP all-to-all messages with tags over two supersteps. Prints
 * {@code LIB OK p=...} per p; any wrong value throws (exec then fails naming the pid).
 */
public final class LibrariesMain {
    private LibrariesMain() {}

    static final class Check implements Spmd {
        private static final long serialVersionUID = 1L;

        @Override
        public void run(Context ctx) {
            int p = ctx.nprocs(), s = ctx.pid();
            ctx.resizeMemoryRegister(16);
            ctx.resizeMessageQueue(8L * p + 16 + Bsmp.queueEntries(p, 2L * p));
            ctx.sync();
            collectives(ctx, p, s);
            bsmp(ctx, p, s);
        }

        private static void collectives(Context ctx, int p, int s) {
            Arena arena = Arena.ofShared();
            Collectives coll = Collectives.init(ctx, 2, 8, 8L * p);
            if (p > 2) { // the machine is probed (p > 2): the tree's groups are the nodes
                int[] nodes = {(p + 1) / 2, p / 2};
                if (!coll.treeGroupsAreNodes() || !java.util.Arrays.equals(coll.treeGroups(), nodes)) {
                    throw new AssertionError("pid " + s + ": tree groups " + java.util.Arrays.toString(coll.treeGroups())
                            + ", nodes " + java.util.Arrays.toString(nodes));
                }
            }
            MemorySegment a = arena.allocate(8L * p, 8), b = arena.allocate(8L * p, 8), e = arena.allocate(8, 8);
            Memslot as = ctx.registerGlobal(a), bs = ctx.registerGlobal(b), es = ctx.registerGlobal(e);
            ctx.sync();
            int root = p - 1;
            if (s == root) for (int i = 0; i < p; i++) a.setAtIndex(JAVA_LONG, i, 7_000 + i);
            coll.broadcast(as, bs, 8L * p, root);
            ctx.sync();
            for (int i = 0; i < p; i++) expect(s == root ? a : b, i, 7_000 + i, "broadcast", s);
            a.setAtIndex(JAVA_LONG, 0, 10L * s + 1);
            coll.allgather(as, bs, 8, false);
            ctx.sync();
            for (int q = 0; q < p; q++) expect(b, q, 10L * q + 1, "allgather", s);
            for (int d = 0; d < p; d++) a.setAtIndex(JAVA_LONG, d, 100L * s + d);
            coll.alltoall(as, bs, 8);
            ctx.sync();
            for (int q = 0; q < p; q++) if (q != s) expect(b, q, 100L * q + s, "alltoall", s); // no diagonal
            // variable sizes (some empty): member q's allgatherv block is q % 3 longs; s sends d (s + d) % 3 longs
            MemorySegment va = arena.allocate(16L * p, 8), vb = arena.allocate(16L * p, 8);
            Memslot vas = ctx.registerGlobal(va), vbs = ctx.registerGlobal(vb);
            ctx.sync();
            long[] counts = new long[p], offsets = new long[p], sc = new long[p], so = new long[p], rc = new long[p],
                    ro = new long[p];
            for (int q = 0, at = 0, out = 0, in = 0; q < p; q++) {
                counts[q] = 8L * (q % 3);
                offsets[q] = at;
                at += (int) counts[q];
                sc[q] = 8L * ((s + q) % 3);
                so[q] = out;
                out += (int) sc[q];
                rc[q] = 8L * ((q + s) % 3);
                ro[q] = in;
                in += (int) rc[q];
            }
            for (int i = 0; i < s % 3; i++) va.setAtIndex(JAVA_LONG, i, 20_000 + 100L * s + i);
            coll.allgatherv(vas, vbs, counts, offsets, false);
            ctx.sync();
            for (int q = 0; q < p; q++) {
                for (int i = 0; i < q % 3; i++) expect(vb, (int) (offsets[q] / 8) + i, 20_000 + 100L * q + i, "allgatherv", s);
            }
            for (int d = 0; d < p; d++) {
                for (int i = 0; i < sc[d] / 8; i++) va.setAtIndex(JAVA_LONG, so[d] / 8 + i, 30_000 + 100L * s + 10L * d + i);
            }
            coll.alltoallv(vas, sc, so, vbs, rc, ro);
            ctx.sync();
            for (int q = 0; q < p; q++) {
                for (int i = 0; i < rc[q] / 8; i++) expect(vb, (int) (ro[q] / 8) + i, 30_000 + 100L * q + 10L * s + i, "alltoallv", s);
            }
            ctx.deregister(vbs);
            ctx.deregister(vas);
            for (Algorithm alg : new Algorithm[] {Algorithm.DIRECT, Algorithm.TWO_PHASE, Algorithm.TREE}) {
                coll.algorithm(alg);
                for (int r : new int[] {0, p - 1, p / 2}) { // first pid of node 0, last pid, a middle one
                    if (s == r) for (int i = 0; i < p; i++) a.setAtIndex(JAVA_LONG, i, 9_000 + 10 * r + i);
                    coll.broadcast(as, bs, 8L * p, r);
                    ctx.sync();
                    for (int i = 0; i < p; i++) expect(s == r ? a : b, i, 9_000 + 10 * r + i, "broadcast " + alg + " root " + r, s);
                    e.set(JAVA_LONG, 0, 3L * s + r);
                    coll.reduce(e, es, 8, Ops.LONG_SUM, r);
                    ctx.sync();
                    if (s == r) expect(e, 0, 3L * p * (p - 1) / 2 + (long) r * p, "reduce " + alg + " root " + r, s);
                }
                e.set(JAVA_LONG, 0, s + 1);
                coll.allreduce(e, es, 8, Ops.LONG_SUM);
                ctx.sync();
                expect(e, 0, (long) p * (p + 1) / 2, "allreduce " + alg, s);
                e.set(JAVA_LONG, 0, 2L * s);
                coll.reduce(e, es, 8, Ops.LONG_MAX, 0);
                ctx.sync();
                if (s == 0) expect(e, 0, 2L * (p - 1), "reduce " + alg, s);
            }
            coll.close();
            ctx.deregister(es);
            ctx.deregister(bs);
            ctx.deregister(as);
            ctx.sync();
        }

        private static void bsmp(Context ctx, int p, int s) {
            Bsmp b = Bsmp.create(ctx, 16L * p, 4, 2L * p);
            for (int round = 0; round < 2; round++) {
                for (int d = 0; d < p; d++) {
                    MemorySegment payload = MemorySegment.ofArray(new long[] {1000L * s + d, round});
                    b.sendIntTag(d, 10 * s + round, payload);
                }
                b.sync();
                boolean[] seen = new boolean[p];
                for (BsmpMessage m; (m = b.move()) != null; ) {
                    int from = m.source();
                    if (m.tagInt() != 10 * from + round || m.size() != 16
                            || m.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != 1000L * from + s
                            || m.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 8) != round || seen[from]) {
                        throw new AssertionError("bsmp at pid " + s + ": wrong message from pid " + from + " in round " + round);
                    }
                    seen[from] = true;
                }
                for (int q = 0; q < p; q++) if (!seen[q]) throw new AssertionError("bsmp at pid " + s + ": nothing from pid " + q);
                b.sync(); // READ -> WRITE
            }
            b.close();
        }

        private static void expect(MemorySegment m, int i, long want, String what, int pid) {
            long got = m.getAtIndex(JAVA_LONG, i);
            if (got != want) throw new AssertionError(what + " at pid " + pid + ": element " + i + " is " + got + ", expected " + want);
        }
    }

    public static void main(String[] args) {
        Context root = Lpf.root("hybrid");
        for (int p = 1; p <= root.probe().p(); p++) {
            root.exec(p, new Check(), Args.NONE);
            System.out.println("LIB OK p=" + p);
        }
    }
}
