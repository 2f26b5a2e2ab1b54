/**
 * The threads engine's shared-memory building blocks, <strong>for engines only</strong> (the
 * hybrid engine reuses them for its node-local processes; programs never use them): the
 * request queue with its per-destination mailbox lines ({@link org.lpf4j.engine.threads.kit.RequestQueue})
 * and the pair of them a process alternates between ({@link org.lpf4j.engine.threads.kit.QueuePair}),
 * what a process does with the group's queues at a sync ({@link org.lpf4j.engine.threads.kit.PullApplier}:
 * pulls the puts to it, runs its gets),
 * the superstep barriers ({@link org.lpf4j.engine.threads.kit.SuperstepBarrier}: a central
 * counter and a dissemination barrier, both carrying a few OR-ed flags), and the waiting policy
 * ({@link org.lpf4j.engine.threads.kit.Waiting}, {@link org.lpf4j.engine.threads.kit.ThreadsPolicy},
 * {@link org.lpf4j.engine.threads.kit.SpinBudgets}, and {@link org.lpf4j.engine.threads.kit.CpuSpreading}
 * over {@link org.lpf4j.engine.threads.kit.Cpus}, which keeps a group's threads spread over the CPUs). A group of threads that uses them implements
 * {@link org.lpf4j.engine.threads.kit.Participants}, keeps its failure state in a
 * {@link org.lpf4j.engine.threads.kit.GroupFailure} and who left when in a
 * {@link org.lpf4j.engine.threads.kit.ProcessLedger}, and starts (all or none), runs and joins its
 * threads with {@link org.lpf4j.engine.threads.kit.ProcessThreads}. Nothing here allocates on the hot path.
 */
package org.lpf4j.engine.threads.kit;
