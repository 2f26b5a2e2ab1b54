package org.lpf4j.spark.examples;

import java.io.Serializable;

/**
 * A directed edge of a graph given as an RDD.
 *
 * @param source the vertex it leaves
 * @param target the vertex it enters
 */
public record Arc(long source, long target) implements Serializable {}
