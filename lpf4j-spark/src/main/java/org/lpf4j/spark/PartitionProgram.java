package org.lpf4j.spark;

import org.lpf4j.Context;

import java.io.Serializable;
import java.util.Iterator;

/**
 * What every partition of a {@link BspStage} runs: one LPF process, whose pid is the partition's
 * index and whose section has as many processes as the RDD has partitions. A lambda whose
 * captured values are serializable (Spark ships it to the executors).
 *
 * @param <T> the input RDD's elements
 * @param <R> the output RDD's elements
 */
@FunctionalInterface
public interface PartitionProgram<T, R> extends Serializable {
    /**
     * Runs this partition's process. It may sync, put, get, use the collectives, BSMP and
     * checkpoints like any SPMD function; returning (or throwing) ends its part of the section.
     *
     * @param ctx       this process's context, valid until this method returns
     * @param partition the partition's elements; read them here, not later
     * @return the elements of the output partition; the iterator is drained before the section
     *         ends, so it may read state of the process, not the context after return
     * @throws Exception anything: it fails the section at every process, and with it the stage
     */
    Iterator<R> run(Context ctx, Iterator<T> partition) throws Exception;
}
