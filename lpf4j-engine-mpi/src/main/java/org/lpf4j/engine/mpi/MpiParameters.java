package org.lpf4j.engine.mpi;

import org.lpf4j.FatalException;
import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.Parameters;

import java.util.List;

/**
 * The MPI engine's parameters ({@link MpiEngine}); see {@link Parameters} for how to set them.
 * Each is resolved once when the engine starts or a section is hooked, never on the hot path.
 */
public final class MpiParameters {
    private MpiParameters() {}

    private static final String PREFIX = "lpf.engine.mpi.";

    /** {@code lpf.engine.mpi.library}: the libmpi to load (a path or soname); empty: the usual sonames. */
    public static final Parameters.Parameter<String> LIBRARY = ParameterRegistry.global().string(PREFIX + "library", "",
            "libmpi to load (path or soname); empty: libmpi.so.40 (Open MPI), then libmpich.so.12 (MPICH)");
    /** {@code lpf.engine.mpi.probeMillis}: the time budget of one probe measurement. */
    public static final Parameters.Parameter<Integer> PROBE_MILLIS = ParameterRegistry.global().integer(PREFIX + "probeMillis",
            400, 10, 600_000, "time budget of one g/l measurement by probe (milliseconds)");

    /** {@code lpf.engine.mpi.launcherOptions}: options {@code lpf run} passes to mpirun/srun (e.g. {@code --hostfile f}). */
    public static final Parameters.Parameter<String> LAUNCHER_OPTIONS = ParameterRegistry.global().string(PREFIX + "launcherOptions",
            "", "options lpf run passes to mpirun/mpiexec/srun, space-separated (e.g. --hostfile hosts or --host a,b)");

    /**
     * {@code lpf.engine.mpi.launcher}: which launcher {@code lpf run --engine mpi -p N} starts
     * ({@link MpiLauncher#forLibrary}).
     */
    public static final Parameters.Parameter<String> LAUNCHER = ParameterRegistry.global().choice(PREFIX + "launcher",
            "auto", List.of("auto", "mpirun", "srun"),
            "what lpf run -p N starts: auto (srun inside a Slurm allocation, else mpirun), mpirun (the launcher of the"
                    + " library's MPI: Open MPI's mpirun or MPICH's mpiexec.mpich), srun (Slurm, with its PMIx or PMI-2 plugin)");

    /** {@code lpf.engine.mpi.launchNodes} ({@code lpf run --nodes N}): the nodes srun spreads the ranks over. */
    public static final Parameters.Parameter<Integer> LAUNCH_NODES = org.lpf4j.spi.kit.LaunchNodes.declare("mpi",
            "srun -N; 0: as the launcher places them; with mpirun give the hosts in launcherOptions instead");

    /**
     * The superstep protocol's parameters ({@code lpf.engine.mpi.pairsInRoundUpTo}, default 44;
     * {@code countExchange}; {@code sparseFrom}), declared as for every engine built on the
     * protocol ({@link org.lpf4j.superstep.ProtocolParameters}); the three fields below are its members.
     */
    public static final org.lpf4j.superstep.ProtocolParameters PROTOCOL = org.lpf4j.superstep.ProtocolParameters.declare(
            PREFIX, 44, "MPI_Allreduce", "MPI_Alltoall");

    /**
     * {@code lpf.engine.mpi.pairsInRoundUpTo}: in sections of at most this many processes a sync
     * with messages sends its packed streams <em>before</em> the sync's {@code MPI_Allreduce},
     * and the allreduce also carries the p × p bits of who sends to whom, so that the streams
     * travel while the allreduce runs and a superstep with messages needs no count exchange of its
     * own. The default keeps the allreduce within 256 bytes (⌈p²/64⌉ + 1 longs), where Open MPI
     * still takes its algorithm for small messages and it costs about what one long does
     * (docs/performance.md). Above it, the counts travel after the round
     * ({@link #COUNT_EXCHANGE}). The hybrid engine's node-level section follows the same limit,
     * counted in nodes. At most 256 (a round of 1025 longs: above 44 every sync, empty ones too,
     * costs more). Every rank of a job must use the same value (the start-up agreement checks it).
     */
    public static final Parameters.Parameter<Integer> PAIRS_IN_ROUND_UP_TO = PROTOCOL.pairsInRoundUpTo();

    /**
     * {@code lpf.engine.mpi.countExchange}: in sections above {@link #PAIRS_IN_ROUND_UP_TO}, how a
     * superstep with messages exchanges its message counts: {@code auto} (the default) chooses per
     * superstep from the round's own numbers, the sparse way (a nonblocking consensus: each process
     * tells only the processes it sends to, then a nonblocking barrier; O(destinations + log p)
     * messages per process) in sections of at least {@link #SPARSE_FROM} processes when every
     * process sends to at most a quarter of the others, else the dense way ({@code MPI_Alltoall}
     * of one long per pair); {@code sparse} and {@code dense} force one. Every rank of a job must
     * use the same value (the start-up agreement checks it).
     */
    public static final Parameters.Parameter<String> COUNT_EXCHANGE = PROTOCOL.countExchange();

    /**
     * {@code lpf.engine.mpi.sparseFrom}: the smallest section in which {@code countExchange=auto}
     * may take the sparse way. Below it the all-to-all of one long per pair is cheap, and a
     * consensus's synchronous sends and barrier cost more rounds than it saves (figures:
     * docs/performance-log.md). Every rank must use the same value.
     */
    public static final Parameters.Parameter<Integer> SPARSE_FROM = PROTOCOL.sparseFrom();

    /**
     * {@code lpf.engine.mpi.syncTimeout} (ms, default 0: none): a deadline on the wait in a sync.
     * A process that has waited this long in one sync (from its entry; the clock starts again
     * whenever every other process is found waiting in a sync too, so a long data exchange does
     * not count) asks the others which of them wait in a sync as well; those that do not answer
     * within a second have not arrived, and every process that did fails with a
     * {@link FatalException} naming them, the superstep, this parameter and its value, and
     * whether a missing process is stopped by a signal (state T in {@code /proc}, e.g.
     * {@code kill -STOP}) when it runs on the same host. The job then ends: the processes that
     * arrived leave without finalising MPI and the launcher kills the rest (a program that hooked
     * a section over its own communicator must not finalise MPI after such a failure either: the
     * missing processes would never take part; {@code MPI_Abort} ends its job). So the value must
     * exceed the longest compute phase of any superstep of the program (plus the skew of the
     * processes' start): a process that computes longer is named as missing. Off by default: a
     * superstep may legitimately compute for hours. The hybrid engine's rounds between nodes
     * follow the same deadline. While it is on, a sync waits by polling nonblocking MPI calls
     * instead of blocking in MPI (docs/performance.md). Every rank of a job must use the same
     * value (the start-up agreement checks it).
     */
    public static final Parameters.Parameter<Integer> SYNC_TIMEOUT = ParameterRegistry.global().integer(
            PREFIX + "syncTimeout", 0, 0, Integer.MAX_VALUE,
            "ms a process waits in a sync before the processes that did not arrive are named and the job fails (0: forever)");

    /**
     * {@code lpf.engine.mpi.wait}: how a rank waits in a sync. {@code block}: in MPI's own blocking
     * calls. {@code poll}: nonblocking calls tested in a loop that yields the core between tests.
     * {@code auto}: poll with MPICH when the job's ranks on this host (as the launcher says)
     * outnumber its cores, or a layered engine asked for waits that yield; block otherwise. MPICH
     * has no switch of its own to yield while it waits (Open MPI has {@code mpi_yield_when_idle},
     * which {@code mpirun --oversubscribe} sets), so its oversubscribed ranks would spin in a
     * blocking call, taking the cores the ranks they wait for need. With Open MPI, {@code poll} also
     * makes {@code lpf run}'s launcher set {@code mpi_yield_when_idle=1} (unless set): every wait
     * inside MPI yields too (hosts of a hostfile that share cores). May differ between ranks.
     */
    public static final Parameters.Parameter<String> WAIT = ParameterRegistry.global().choice(PREFIX + "wait", "auto",
            List.of("auto", "block", "poll"),
            "how a rank waits in a sync: block (MPI's blocking calls), poll (nonblocking calls tested, yielding the core"
                    + " between tests), auto (poll with MPICH when the ranks on this host outnumber its cores, else block)");

    /** @return this engine's parameters, for the provider's {@code open} */
    static List<Parameters.Parameter<?>> parameters() {
        return List.of(LIBRARY, PROBE_MILLIS, LAUNCHER, LAUNCH_NODES, LAUNCHER_OPTIONS, PAIRS_IN_ROUND_UP_TO, COUNT_EXCHANGE, SPARSE_FROM, SYNC_TIMEOUT, WAIT);
    }

}
