package org.lpf4j.spark;

import org.apache.spark.api.java.JavaSparkContext;
import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;
import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;
import org.lpf4j.spi.kit.ForwardingContext;
import org.lpf4j.superstep.JobRuntime;
import org.lpf4j.superstep.WholeJobProbe;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * A test engine, {@code sparkstage}: the root's {@code exec(p)} runs the function as a
 * {@link BspStage} of p partitions on the Spark cluster named by {@link #use} (at most its task
 * slots), so that the conformance suite runs unchanged inside Spark's executors: the tasks of an
 * executor as one node of threads, the executors over the net engine, every class from the
 * executors' own class loader. Process 0 runs in an executor too: the input of {@code args}
 * travels to it in the task closure, and its output comes back as its partition of the result.
 * A failed stage is a {@link FatalException} whose message is Spark's (the processes' own
 * exceptions stay in the executors, so this engine cannot hand them to the caller). The root's
 * own context (p = 1: registrations and supersteps of its own) is the threads engine's.
 * Priority 1: chosen only by name.
 */
public final class StageEngine implements EngineProvider {
    private static volatile JavaSparkContext spark;
    private static volatile int slots = 1;

    /** For ServiceLoader. */
    public StageEngine() {}

    /** Makes {@code exec} run on {@code sc}, whose executors have {@code taskSlots} task slots together. */
    static void use(JavaSparkContext sc, int taskSlots) {
        spark = sc;
        slots = taskSlots;
    }

    @Override public String name() { return "sparkstage"; }
    @Override public Version frameworkApiVersion() { return new Version(1, 0, 0); }
    @Override public Version version() { return new Version(0, 1, 0); }
    @Override public Query query() { return Query.run(1); }
    @Override public int machineSize() { return slots; }

    @Override
    public Context root() {
        return new ForwardingContext(Lpf.root("threads")) {
            @Override
            public void exec(int p, Spmd spmd, Args args) {
                JobRuntime.checkRootExec(p, spmd, args);
                stage(Math.min(p, machineSize()), spmd, args);
            }

            @Override
            public Machine probe() {
                int n = machineSize();
                return WholeJobProbe.cached("sparkstage/" + n, () -> {
                    MemorySegment figures = Arena.ofAuto().allocate(8 + 24L * MAX_SIZES, 8);
                    exec(n, new Measure(), Args.of(MemorySegment.NULL, figures));
                    int k = (int) figures.get(ValueLayout.JAVA_LONG, 0);
                    long[] sizes = new long[k];
                    double[] g = new double[k], l = new double[k];
                    for (int i = 0; i < k; i++) {
                        sizes[i] = figures.get(ValueLayout.JAVA_LONG, 8 + 24L * i);
                        g[i] = figures.get(ValueLayout.JAVA_DOUBLE, 16 + 24L * i);
                        l[i] = figures.get(ValueLayout.JAVA_DOUBLE, 24 + 24L * i);
                    }
                    return new Machine(n, n, sizes, g, l);
                });
            }
        };
    }

    private static final int MAX_SIZES = 64;

    /** Measures on every process of a stage; pid 0 writes its figures into its output (its JVM is an executor's). */
    private static final class Measure implements Spmd {
        private static final long serialVersionUID = 1L;

        @Override
        public void run(Context ctx) {
            Machine m = ctx.probe();
            if (ctx.pid() != 0) return;
            MemorySegment out = ctx.args().output();
            long[] sizes = m.messageSizes();
            int k = Math.min(sizes.length, MAX_SIZES);
            out.set(ValueLayout.JAVA_LONG, 0, k);
            for (int i = 0; i < k; i++) {
                out.set(ValueLayout.JAVA_LONG, 8 + 24L * i, sizes[i]);
                out.set(ValueLayout.JAVA_DOUBLE, 16 + 24L * i, m.g(sizes[i]));
                out.set(ValueLayout.JAVA_DOUBLE, 24 + 24L * i, m.l(sizes[i]));
            }
        }
    }

    private static void stage(int n, Spmd spmd, Args args) {
        JavaSparkContext sc = spark;
        if (sc == null) throw new IllegalStateException("sparkstage: no Spark context (StageEngine.use)");
        byte[] input = args.input().byteSize() > 0 ? args.input().toArray(ValueLayout.JAVA_BYTE) : null;
        long outputBytes = args.output().byteSize();
        List<byte[]> out;
        try {
            // An exec leaves its checkpoints where they are, on every engine.
            BspStage<Integer> stage = BspStage.of(sc.parallelize(IntStream.range(0, n).boxed().toList(), n)).keepCheckpoints(true);
            // The caller's Parameters.set holds in the stage's tasks, as a multi-JVM engine's exec carries it.
            for (Map.Entry<String, String> e : ParameterRegistry.global().settings().entrySet()) stage = stage.parameter(e.getKey(), e.getValue());
            out = stage.mapPartitions(new Process(spmd, input, outputBytes, args.symbols())).collect();
        } catch (Exception e) { // SparkException is checked, and Scala's collect throws it undeclared
            throw new FatalException("exec(p=" + n + ") as a Spark barrier stage failed: " + e.getMessage(), null);
        }
        if (outputBytes > 0) MemorySegment.copy(MemorySegment.ofArray(out.getFirst()), 0, args.output(), 0, outputBytes);
    }

    /** What each partition runs: the function, with process 0's input and output as {@code args}. */
    private record Process(Spmd spmd, byte[] input, long outputBytes, List<Object> symbols)
            implements PartitionProgram<Integer, byte[]> {
        @Override
        public Iterator<byte[]> run(Context ctx, Iterator<Integer> partition) throws Exception {
            boolean first = ctx.pid() == 0;
            MemorySegment in = MemorySegment.NULL, out = MemorySegment.NULL;
            if (first && input != null) in = Arena.ofAuto().allocate(input.length).copyFrom(MemorySegment.ofArray(input));
            if (first && outputBytes > 0) out = Arena.ofAuto().allocate(outputBytes);
            Args mine = new Args(in, out, symbols);
            spmd.run(new ForwardingContext(ctx) {
                @Override public Args args() { return mine; }
            });
            return first ? List.of(outputBytes > 0 ? out.toArray(ValueLayout.JAVA_BYTE) : new byte[0]).iterator()
                    : Collections.emptyIterator();
        }
    }
}
