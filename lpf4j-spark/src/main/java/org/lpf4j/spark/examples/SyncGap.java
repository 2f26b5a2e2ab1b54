package org.lpf4j.spark.examples;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.lpf4j.spark.BspStage;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An empty sync inside a {@link BspStage} beside the same loop ({@link SyncLoop}) under
 * {@code lpf run}, taking turns in one run: the measurement behind docs/performance.md, "Inside
 * Spark". {@code main(master turns warm reps syncs variants [command...])}: each turn runs one
 * barrier stage of two partitions per variant (a {@code ;}-separated list of {@code key=value}
 * stage parameters, or of {@code warm}, {@code reps}, {@code syncs} to time another loop and
 * {@code tasks} for another number of partitions, {@code executorNodes=false} for a net-engine
 * process per task;
 * {@code default} for none; variants separated by {@code ,}), then the commands (e.g.
 * {@code bin/lpf run --engine net -p 2 ...}; several separated by {@code ::}) if any are given;
 * every process prints its figures.
 */
public final class SyncGap {
    private SyncGap() {}

    /**
     * @param args master, turns, warm-up syncs, repetitions, syncs per repetition, variants, and
     *             optionally a command to run in every turn after the stages
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        String master = args[0];
        int turns = Integer.parseInt(args[1]), warm = Integer.parseInt(args[2]), reps = Integer.parseInt(args[3]),
                syncs = Integer.parseInt(args[4]);
        String[] variants = args[5].split(",");
        List<String> command = Arrays.asList(args).subList(6, args.length);
        SparkConf conf = new SparkConf().setAppName("lpf4j sync gap").setMaster(master);
        try (JavaSparkContext spark = new JavaSparkContext(conf)) {
            spark.setLogLevel("WARN");
            JavaRDD<Integer> two = spark.parallelize(List.of(0, 1), 2).cache();
            two.count();
            for (int turn = 0; turn < turns; turn++) {
                for (String variant : variants) {
                    int[] loop = {warm, reps, syncs, 2, 1}; // ..., tasks, executor nodes (1) or not (0)
                    List<String[]> parameters = new ArrayList<>();
                    if (!variant.equals("default")) {
                        for (String kv : variant.split(";")) {
                            int eq = kv.indexOf('=');
                            String key = kv.substring(0, eq), value = kv.substring(eq + 1);
                            switch (key) {
                                case "warm" -> loop[0] = Integer.parseInt(value);
                                case "reps" -> loop[1] = Integer.parseInt(value);
                                case "syncs" -> loop[2] = Integer.parseInt(value);
                                case "tasks" -> loop[3] = Integer.parseInt(value);
                                case "executorNodes" -> loop[4] = Boolean.parseBoolean(value) ? 1 : 0;
                                default -> parameters.add(new String[]{key, value});
                            }
                        }
                    }
                    BspStage<Integer> stage = BspStage.of(loop[3] == 2 ? two
                            : spark.parallelize(java.util.stream.IntStream.range(0, loop[3]).boxed().toList(), loop[3]))
                            .executorNodes(loop[4] == 1);
                    for (String[] kv : parameters) stage = stage.parameter(kv[0], kv[1]);
                    int w = loop[0], r = loop[1], k = loop[2];
                    long cpu0 = SyncLoop.processCpuNanos(), wall0 = System.nanoTime();
                    List<String> lines = stage.mapPartitions((ctx, ignored) -> {
                        SyncLoop.Figures f = SyncLoop.time(ctx, w, r, k);
                        return List.of("pid " + ctx.pid() + " " + f + " | thread " + Thread.currentThread().getName() + " "
                                + SyncLoop.jvm()).iterator();
                    }).collect();
                    double driverCores = (double) (SyncLoop.processCpuNanos() - cpu0) / (System.nanoTime() - wall0);
                    for (String l : lines) System.out.println("turn " + turn + " spark[" + variant + "] " + l);
                    System.out.printf("turn %d spark[%s] driver_cores %.3f (the driver JVM's CPU over the stage, start to collect)%n",
                            turn, variant, driverCores);
                }
                int from = 0;
                for (int i = 0; i <= command.size(); i++) {
                    if (i == command.size() || command.get(i).equals("::")) {
                        if (i > from) run(command.subList(from, i), turn);
                        from = i + 1;
                    }
                }
            }
        }
    }

    private static void run(List<String> command, int turn) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l; (l = out.readLine()) != null; ) System.out.println("turn " + turn + " " + l);
        }
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}
