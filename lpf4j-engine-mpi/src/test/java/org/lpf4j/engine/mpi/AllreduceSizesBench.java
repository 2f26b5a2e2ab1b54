package org.lpf4j.engine.mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * What a sync's round costs as it grows: raw {@code MPI_Allreduce(BOR)} of 1, 2, 5, 17, 32, 33
 * and 65 longs through the engine's binding (docs/performance.md, "Streams before the round"),
 * the sizes of the round with the bits of who sends to whom at p = 2 … 8, 16, 44 and just above.
 * Run under a launcher from the project root after {@code mvn -pl lpf4j-engine-mpi -am
 * test-compile}: {@code mpirun -n P --oversubscribe --bind-to none java
 * --enable-native-access=ALL-UNNAMED -cp "lpf4j-tools/target/lib/*:lpf4j-engine-mpi/target/test-classes"
 * org.lpf4j.engine.mpi.AllreduceSizesBench}. Prints one line at rank 0: µs per allreduce per
 * size, medians of 7 batches after a warm-up pass.
 */
public final class AllreduceSizesBench {
    private AllreduceSizesBench() {}

    private static final int[] WORDS = {1, 2, 5, 17, 32, 33, 65};

    public static void main(String[] args) {
        Mpi mpi = Mpi.load(MpiParameters.LIBRARY.get());
        mpi.initThread(Mpi.THREAD_SERIALIZED);
        long world = MpiEngine.commWorld();
        int n = mpi.size(world), me = mpi.rank(world);
        MemorySegment buffer = Arena.global().allocate(16L * WORDS[WORDS.length - 1], 64);
        int batch = n >= 16 ? 300 : 2000;
        double[][] micros = new double[WORDS.length][7];
        for (int round = 0; round < 2; round++) {
            for (int r = 0; r < 7; r++) {
                for (int w = 0; w < WORDS.length; w++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < batch; i++) {
                        mpi.allreduceLongs(buffer.address(), buffer.address() + 8L * WORDS[w], WORDS[w], mpi.opBor(), world);
                    }
                    micros[w][r] = (System.nanoTime() - t0) / 1e3 / batch;
                }
            }
        }
        StringBuilder line = new StringBuilder("p=" + n);
        for (int w = 0; w < WORDS.length; w++) {
            double[] sorted = micros[w].clone();
            Arrays.sort(sorted);
            line.append(String.format(" %dw %.2f", WORDS[w], sorted[sorted.length / 2]));
        }
        if (me == 0) System.out.println(line);
        mpi.finish();
    }
}
