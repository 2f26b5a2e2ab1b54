package org.lpf4j.spark.examples;

import java.io.Serializable;

/**
 * A vertex and its PageRank.
 *
 * @param vertex the vertex id
 * @param rank   its rank
 */
public record VertexRank(long vertex, double rank) implements Serializable {}
