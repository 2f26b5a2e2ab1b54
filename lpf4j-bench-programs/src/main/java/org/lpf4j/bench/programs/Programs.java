package org.lpf4j.bench.programs;

import org.lpf4j.Context;
import org.lpf4j.examples.BspRun;
import org.lpf4j.examples.Fft;
import org.lpf4j.examples.MatrixMultiply;
import org.lpf4j.examples.PageRank;
import org.lpf4j.examples.Rmat;
import org.lpf4j.examples.SampleSort;

import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Function;

/**
 * The program cases of {@code lpf bench --programs}: sample sort vs {@code Arrays.parallelSort},
 * SUMMA vs a parallel-streams blocked multiply, the BSP FFT vs JTransforms, PageRank vs a
 * parallel-streams CSR SpMV; at the real sizes ({@link #standard()}) or tiny ones
 * ({@link #quick()}, for smoke tests).
 */
public final class Programs {
    private Programs() {}

    /** The standard sizes. */
    public static final long SORT_N = 10_000_000L;
    /** Matrix order of the standard size. */
    public static final int MATMUL_N = 1024;
    /** FFT length of the standard size. */
    public static final int FFT_N = 1 << 22;
    /** R-MAT scale (log2 vertices) of the standard size. */
    public static final int PAGERANK_SCALE = 18;
    /** R-MAT edge factor. */
    public static final int EDGE_FACTOR = 16;

    /** @return the cases at the standard sizes (a few minutes in all on 2 cores) */
    public static List<ProgramCase> standard() { return cases(SORT_N, MATMUL_N, FFT_N, PAGERANK_SCALE, EDGE_FACTOR); }

    /** @return the cases at tiny sizes (well under a second each) */
    public static List<ProgramCase> quick() { return cases(20_000, 48, 1 << 10, 9, 8); }

    /**
     * The cases at the given sizes.
     *
     * @param sortN  values to sort
     * @param matN   matrix order
     * @param fftN   FFT length (a power of two)
     * @param scale  R-MAT scale
     * @param ef     R-MAT edge factor
     * @return the four cases
     */
    public static List<ProgramCase> cases(long sortN, int matN, int fftN, int scale, int ef) {
        long sortSeed = SampleSort.DEFAULT_SEED, fftSeed = Fft.DEFAULT_SEED, graphSeed = PageRank.DEFAULT_SEED;
        int iterations = PageRank.DEFAULT_ITERATIONS;
        Rmat.Csr[] graph = new Rmat.Csr[1];
        return List.of(
                of("sample sort", "n=" + sortN, "Arrays.parallelSort",
                        ctx -> SampleSort.prepare(ctx, sortN, sortSeed),
                        t -> new SortPeer(t, Math.toIntExact(sortN), sortSeed)),
                of("matrix multiply", "n=" + matN, "parallel-streams blocked",
                        ctx -> MatrixMultiply.prepare(ctx, matN),
                        t -> new MatmulPeer(t, matN)),
                of("FFT", "n=" + fftN, "JTransforms",
                        ctx -> Fft.prepare(ctx, fftN, fftSeed),
                        t -> new FftPeer(t, fftN, fftSeed)),
                of("PageRank", "2^" + scale + " vertices, " + ((long) ef << scale) + " edges, " + iterations + " it.",
                        "parallel-streams CSR",
                        ctx -> PageRank.prepare(ctx, scale, ef, iterations, graphSeed),
                        t -> {
                            if (graph[0] == null) graph[0] = Rmat.Csr.build(scale, ef, graphSeed, 0, 1 << scale);
                            return new PageRankPeer(t, graph[0], iterations);
                        }));
    }

    private static ProgramCase of(String name, String size, String peerName, Preparer lpf, Function<Integer, Peer> peer) {
        return new Case(name, size, peerName, lpf, peer);
    }

    /** Prepares a process's part of an lpf4j program; serializable, so that the case crosses JVMs. */
    @FunctionalInterface
    interface Preparer extends java.io.Serializable {
        BspRun prepare(Context ctx);
    }

    /** A case; its peer factory stays in the JVM that made it (the peer runs only there). */
    private static final class Case implements ProgramCase {
        private static final long serialVersionUID = 1L;
        private final String name, size, peerName;
        private final Preparer lpf;
        private final transient Function<Integer, Peer> peer;

        Case(String name, String size, String peerName, Preparer lpf, Function<Integer, Peer> peer) {
            this.name = name;
            this.size = size;
            this.peerName = peerName;
            this.lpf = lpf;
            this.peer = peer;
        }

        @Override public String name() { return name; }
        @Override public String size() { return size; }
        @Override public String peerName() { return peerName; }
        @Override public BspRun prepare(Context ctx) { return lpf.prepare(ctx); }

        @Override
        public Peer peer(int threads) {
            if (peer == null) throw new IllegalStateException(name + ": the peer runs only in the JVM that made the case");
            return peer.apply(threads);
        }
    }

    /**
     * Lets {@code Arrays.parallelSort} split its work for up to {@code parallelism} threads: sets
     * the common pool's parallelism property if it is unset. Effective only if the common pool
     * has not been created yet in this JVM.
     *
     * @param parallelism the largest thread count the peers will use
     * @return the common pool's parallelism now in effect
     */
    public static int prepareCommonPool(int parallelism) {
        String key = "java.util.concurrent.ForkJoinPool.common.parallelism";
        if (System.getProperty(key) == null) System.setProperty(key, Integer.toString(Math.max(2, parallelism)));
        return ForkJoinPool.getCommonPoolParallelism();
    }
}
