package org.lpf4j.spark;

import org.apache.spark.Partitioner;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import org.lpf4j.engine.net.HostedSection;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;

/**
 * An lpf4j section inside a Spark barrier stage: every partition of an RDD becomes one LPF
 * process (pid = the partition's index, p = the number of partitions), and what each returns
 * becomes its partition of the result. The tasks one executor JVM runs are threads of one node
 * (memory copies and a barrier between them, {@link #executorNodes}); the executors' nodes meet
 * in a section of the net engine.
 *
 * <pre>{@code
 * JavaRDD<Integer> sizes = BspStage.of(numbers)             // a JavaRDD<Long> of p partitions: p processes
 *         .mapPartitions((ctx, partition) -> {
 *             int n = 0;
 *             for (; partition.hasNext(); partition.next()) n++;
 *             ctx.sync();                                     // a superstep of all p processes
 *             return List.of(n).iterator();                   // partition pid of the result
 *         });
 * sizes.collect();                                            // runs the stage
 * }</pre>
 * (docs/spark.md has a complete program that puts between the processes.)
 *
 * <p><b>How it runs.</b> Like any transformation, {@link #mapPartitions} is lazy: an action on
 * the result runs one barrier stage ({@code rdd.barrier().mapPartitions}), which Spark starts only
 * when it can run all p tasks at once (p task slots are needed). The stage's output reaches the
 * result through a shuffle (partition i of the result is what process i returned, in its order):
 * Spark retries a failed barrier stage only when it ends in a shuffle, and that costs writing
 * and reading the output once. Each task joins the section
 * through one {@code allGather} (its executor's address; a round trip to the driver, once per stage), then its
 * processes connect over TCP, every connection proving a random key that the driver made when
 * {@code mapPartitions} was called and that travels only in the task closure. Sockets bind to the
 * executor's address ({@code lpf.engine.net.bind} given as a {@linkplain #parameter parameter}
 * overrides it). Nothing outlives the task: the connections close when the process ends.
 *
 * <p><b>Failure.</b> A process that throws, or a lost executor, fails the section at every
 * process ({@code FatalException} at their next sync); each task then throws a
 * {@link BspStageException} naming its partition and the cause, which fails the barrier stage,
 * and Spark runs the whole stage again ({@code spark.stage.maxConsecutiveAttempts} times). With
 * {@link #checkpoints} every attempt after the first resumes its {@code Checkpoints} from the last
 * complete checkpoint of this stage, instead of from the beginning. A programming error that an
 * lpf4j check reports ({@link BspStageException#isProgrammingError()}: a full register or queue,
 * a bad argument) would fail every attempt alike: the driver cancels the job as soon as it hears
 * of it, without another attempt (Spark has no rule that spares a barrier stage its retries, so a
 * listener on the driver does it).
 *
 * <p><b>Call site.</b> Spark's UI and logs name the stage after the code that called
 * {@code mapPartitions} ({@code "BspStage.mapPartitions at PageRank.java:42"}), unless the caller
 * set a call site of its own ({@code JavaSparkContext.setCallSite}).
 *
 * <p>Instances are immutable; the builder methods return new ones. Cost on the driver: nothing
 * until an action runs the stage.
 *
 * @param <T> the input RDD's elements
 */
public final class BspStage<T> {
    private final JavaRDD<T> input;
    private final Map<String, String> parameters;
    private final boolean keepCheckpoints;
    private final boolean executorNodes;

    private BspStage(JavaRDD<T> input, Map<String, String> parameters, boolean keepCheckpoints, boolean executorNodes) {
        this.input = input;
        this.parameters = parameters;
        this.keepCheckpoints = keepCheckpoints;
        this.executorNodes = executorNodes;
    }

    /**
     * @param rdd the input: one LPF process per partition
     * @param <T> its elements
     * @return a stage over it, with no parameters set
     */
    public static <T> BspStage<T> of(JavaRDD<T> rdd) {
        return new BspStage<>(Objects.requireNonNull(rdd, "BspStage.of: rdd"), new TreeMap<>(), false, true);
    }

    /**
     * Sets an lpf4j parameter in every task of the stage (e.g. {@code lpf.engine.net.syncTimeout},
     * {@code lpf.coll}, {@code lpf.cr.files.keep}). The parameters hold in the whole executor JVM
     * while the stage's tasks run there, so stages running at once in one executor must set the
     * same parameters, a key that one sets and the other leaves unset included: the later one's
     * tasks fail naming the keys that differ (and Spark retries the stage). Each task checks the
     * parameters before it starts: an unknown key or a bad value fails the stage as a programming
     * error naming both (not retried).
     *
     * @param key   the key, starting with {@code lpf.}
     * @param value its value
     * @return a stage with the parameter set
     * @throws IllegalArgumentException if the key does not start with {@code lpf.}
     */
    public BspStage<T> parameter(String key, String value) {
        Objects.requireNonNull(key, "BspStage.parameter: key");
        Objects.requireNonNull(value, "BspStage.parameter: value");
        if (!key.startsWith("lpf.")) {
            throw new IllegalArgumentException("BspStage.parameter(" + key + ", " + value + "): lpf4j's parameters start with 'lpf.'");
        }
        Map<String, String> p = new TreeMap<>(parameters);
        p.put(key, value);
        return new BspStage<>(input, p, keepCheckpoints, executorNodes);
    }

    /**
     * Keeps the {@code Checkpoints} of the stage's processes in a directory (the {@code files}
     * module), so that a retry of the stage resumes from the last complete checkpoint. When the
     * section ends well, its process 0 removes the checkpoints and the run's {@code reached-} file
     * from the directory (after one more sync, so that every process has returned first), unless
     * {@link #keepCheckpoints(boolean)} says to keep them. The directory belongs to one stage at a
     * time.
     *
     * @param directory a directory every executor sees alike (a shared file system; a local
     *                  path when all executors run on one host)
     * @param every     how often a checkpoint is due, e.g. {@code "30s"}, {@code "500ms"}
     * @return a stage with checkpoints
     */
    public BspStage<T> checkpoints(String directory, String every) {
        Objects.requireNonNull(directory, "BspStage.checkpoints: directory");
        Objects.requireNonNull(every, "BspStage.checkpoints: every");
        if (directory.isBlank()) throw new IllegalArgumentException("BspStage.checkpoints: the directory is blank");
        return parameter("lpf.cr", "files").parameter("lpf.cr.files.dir", directory).parameter("lpf.cr.files.every", every);
    }

    /**
     * Whether the checkpoints of a section that ended well stay in the {@link #checkpoints}
     * directory (e.g. to look at them with {@code lpf checkpoint}); by default they are removed.
     * While the stage runs, {@code lpf.cr.files.keep} says how many are kept.
     *
     * @param keep true: keep them
     * @return a stage with that policy
     */
    public BspStage<T> keepCheckpoints(boolean keep) { return new BspStage<>(input, parameters, keep, executorNodes); }

    /**
     * Whether the tasks that share an executor JVM form one node (the default): threads whose
     * puts to each other are memory copies and whose sync is a barrier, as on the threads engine,
     * with one task per executor (its lowest partition) carrying the node's traffic to the other
     * executors over the net engine. Off, every task is a net-engine process of its own (tasks of
     * one executor then talk through in-JVM rings, with the net protocol's cost per sync).
     *
     * @param on true: one node per executor
     * @return a stage with that choice
     */
    public BspStage<T> executorNodes(boolean on) { return new BspStage<>(input, parameters, keepCheckpoints, on); }

    /** @return the parameters this stage sets in its tasks */
    public Map<String, String> parameters() { return Map.copyOf(parameters); }

    /**
     * Makes the stage (lazily, as Spark transformations are): an action on the result runs every
     * partition's process at once, in a barrier stage.
     *
     * @param program what every process runs
     * @param <R>     the result's elements
     * @return the result: partition i holds what process i returned
     */
    public <R> JavaRDD<R> mapPartitions(PartitionProgram<T, R> program) {
        Objects.requireNonNull(program, "BspStage.mapPartitions: program");
        SparkContext sc = input.context();
        BspTask<T, R> task = new BspTask<>(program, HostedSection.newSecret(), "spark-" + UUID.randomUUID(), sc.applicationId(),
                parameters, keepCheckpoints, executorNodes);
        ProgrammingErrors.watch(sc);
        try (CallSites.Scope ignored = CallSites.caller(sc, "BspStage.mapPartitions")) {
            RDD<scala.Tuple2<Integer, R>> keyed = input.rdd().barrier().mapPartitions(task, false, anything());
            // Spark aborts a failed barrier stage that is a result stage, and retries one that ends
            // in a shuffle: each output element goes to the result's partition of its pid.
            return new JavaPairRDD<Integer, R>(keyed, anything(), anything())
                    .partitionBy(new PidPartitioner(input.getNumPartitions())).values();
        }
    }

    @SuppressWarnings("unchecked")
    private static <X> scala.reflect.ClassTag<X> anything() {
        return (scala.reflect.ClassTag<X>) scala.reflect.ClassTag$.MODULE$.apply(Object.class);
    }

    /** Sends the elements keyed by pid i to partition i. */
    private static final class PidPartitioner extends Partitioner {
        private static final long serialVersionUID = 1L;
        private final int partitions;

        PidPartitioner(int partitions) { this.partitions = partitions; }

        @Override public int numPartitions() { return partitions; }

        @Override public int getPartition(Object key) { return (Integer) key; }

        @Override public boolean equals(Object o) { return o instanceof PidPartitioner q && q.partitions == partitions; }

        @Override public int hashCode() { return partitions; }
    }
}
