/**
 * What an engine layered on the MPI engine (the hybrid engine) needs of it before MPI starts:
 * what the launcher says about this host ({@link org.lpf4j.engine.mpi.layered.LaunchedHost}), how
 * a rank waits inside MPI ({@link org.lpf4j.engine.mpi.layered.WaitPolicy}) and the C environment
 * libmpi reads ({@link org.lpf4j.engine.mpi.layered.NativeEnv}). Exported only
 * to {@code org.lpf4j.engine.hybrid}; not for programs. The superstep exchange it runs between
 * nodes is the protocol's ({@code org.lpf4j.superstep}), not this engine's.
 */
package org.lpf4j.engine.mpi.layered;
