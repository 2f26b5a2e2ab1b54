/**
 * The comparisons a Spark user makes: PageRank of an R-MAT graph given as an RDD of
 * {@link org.lpf4j.spark.examples.Arc}s inside one barrier stage
 * ({@link org.lpf4j.spark.examples.BspPageRank}) against GraphX's
 * ({@link org.lpf4j.spark.examples.PageRankVsGraphX}, {@code bin/spark-example}), and a sort
 * ({@link org.lpf4j.spark.examples.BspSort}) against {@code sortBy}.
 */
package org.lpf4j.spark.examples;
