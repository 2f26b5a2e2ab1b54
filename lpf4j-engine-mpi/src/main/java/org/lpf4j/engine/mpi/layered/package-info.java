/**
 * What an engine layered on the MPI engine (the hybrid engine) uses of it, and nothing more: the
 * superstep exchange between JVMs, written once in the MPI engine, for requests of several
 * processes per rank. Exported only to {@code org.lpf4j.engine.hybrid}; not for programs.
 *
 * <p>A layered engine runs one MPI-engine section whose processes are its nodes (one rank
 * each). Its node's requests for other nodes travel in that section's sync
 * ({@link org.lpf4j.engine.mpi.layered.NodeExchange#sync}): the same round, the same meta-data
 * rule, the same packed format, the same large-message path and the same combiner table as the
 * MPI engine's own sync. The layered engine never calls MPI itself.
 */
package org.lpf4j.engine.mpi.layered;
