/**
 * What must happen in this JVM before MPI starts: how a rank waits inside MPI
 * ({@link org.lpf4j.engine.mpi.layered.WaitPolicy}, chosen by an engine layered on this one through
 * {@link org.lpf4j.spi.kit.NodeLevelEngine#waitPolicy}) and the C environment libmpi reads
 * ({@link org.lpf4j.engine.mpi.layered.NativeEnv}). Not exported.
 */
package org.lpf4j.engine.mpi.layered;
