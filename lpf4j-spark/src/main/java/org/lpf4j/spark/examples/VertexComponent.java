package org.lpf4j.spark.examples;

import java.io.Serializable;

/**
 * A vertex and its connected component, named by the component's smallest vertex id (as GraphX's
 * {@code connectedComponents} names it).
 *
 * @param vertex    the vertex id
 * @param component the smallest vertex id of its component
 */
public record VertexComponent(long vertex, long component) implements Serializable {}
