package org.lpf4j.bsplib;

import java.io.Serializable;

/**
 * A BSPlib SPMD program: what every process runs between {@code bsp_begin} and {@code bsp_end}
 * ({@link Bsplib#run}). Serializable, like {@link org.lpf4j.Spmd}, so that engines of several
 * JVMs can ship it: capture only serializable values.
 */
@FunctionalInterface
public interface BspProgram extends Serializable {
    /**
     * Runs this process's part.
     *
     * @param bsp this process's BSPlib state; valid until this method returns
     */
    void run(Bsplib bsp);
}
