/**
 * The comparisons a Spark user makes: PageRank of an R-MAT graph given as an RDD of
 * {@link org.lpf4j.spark.examples.Arc}s inside one barrier stage
 * ({@link org.lpf4j.spark.examples.BspPageRank}) against GraphX's
 * ({@link org.lpf4j.spark.examples.PageRankVsGraphX}, {@code bin/spark-example}), and a sort
 * ({@link org.lpf4j.spark.examples.BspSort}) against {@code sortBy}; and an empty sync inside a
 * stage against the same loop under {@code lpf run}, taking turns
 * ({@link org.lpf4j.spark.examples.SyncGap}, {@code docs/scripts/spark-sync-gap.sh}).
 */
package org.lpf4j.spark.examples;
