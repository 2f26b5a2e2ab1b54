/**
 * BSPlib (the Oxford BSP Toolset's interface, as C LPF's {@code bsplib.h} defines it) on the LPF
 * core API: {@link org.lpf4j.bsplib.Bsplib} is one process's BSPlib state over an
 * {@link org.lpf4j.Context}; {@link org.lpf4j.bsplib.Bsplib#run} runs an SPMD program of
 * {@link org.lpf4j.bsplib.BspProgram} on p processes of the selected engine.
 */
package org.lpf4j.bsplib;
