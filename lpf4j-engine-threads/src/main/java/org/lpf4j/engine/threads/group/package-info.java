/**
 * The threads engine's building blocks for a group of process threads in one JVM, <strong>for engines only</strong> (the
 * hybrid engine reuses them for its node-local processes; programs never use them): the
 * request queue with its per-destination mailbox lines ({@link org.lpf4j.engine.threads.group.RequestQueue})
 * and the pair of them a process alternates between ({@link org.lpf4j.engine.threads.group.QueuePair}),
 * what a process does with the group's queues at a sync ({@link org.lpf4j.engine.threads.group.PullApplier}:
 * pulls the puts to it, runs its gets),
 * the superstep barriers ({@link org.lpf4j.engine.threads.group.SuperstepBarrier}: a central
 * counter and a dissemination barrier, both carrying a few OR-ed flags), and the waiting policy
 * ({@link org.lpf4j.engine.threads.group.Waiting}, {@link org.lpf4j.engine.threads.group.ThreadsPolicy},
 * {@link org.lpf4j.engine.threads.group.SpinBudgets}, and {@link org.lpf4j.engine.threads.group.CpuSpreading}
 * over {@link org.lpf4j.engine.threads.group.Cpus}, which keeps a group's threads spread over the CPUs). A group of threads that uses them implements
 * {@link org.lpf4j.engine.threads.group.Participants}, keeps its failure state in a
 * {@link org.lpf4j.engine.threads.group.GroupFailure} and who left when in a
 * {@link org.lpf4j.engine.threads.group.ProcessLedger}, and starts (all or none), runs and joins its
 * threads with {@link org.lpf4j.engine.threads.group.ProcessThreads}. Nothing here allocates on the hot path.
 */
package org.lpf4j.engine.threads.group;
