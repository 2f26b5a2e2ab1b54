/**
 * lpf4j sections inside Spark barrier stages: {@link org.lpf4j.spark.BspStage} turns a
 * {@code JavaRDD} into a section of the net engine with one LPF process per partition, booted by
 * one {@code allGather} of the stage ({@code BarrierBootSession}) and authenticated by a key the
 * driver makes; a {@link org.lpf4j.spark.PartitionProgram} is what every process runs. Spark is the
 * user's ({@code provided}); this package runs on the class path (Spark's executors load it as an
 * application jar), not as a named module.
 */
package org.lpf4j.spark;
