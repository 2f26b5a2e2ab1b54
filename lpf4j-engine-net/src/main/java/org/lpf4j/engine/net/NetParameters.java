package org.lpf4j.engine.net;

import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.Parameters;
import org.lpf4j.superstep.ProtocolParameters;

import java.util.List;

/**
 * The net engine's parameters. Under {@code lpf run --engine net -p N} (or any boot module that
 * gives every JVM its rank, the job size and a session: {@code tcp}, {@code pmix}), every JVM of
 * the job calls {@code Lpf.root()}: rank 0 gets the root context (its {@code exec(p)} runs on the
 * first p JVMs), every other rank waits inside it for sections and exits (status 0) when rank 0's
 * JVM ends. Every rank of a job must use the same values of the protocol's parameters (the
 * start-up agreement checks them).
 */
public final class NetParameters {
    private NetParameters() {}

    private static final String PREFIX = "lpf.engine.net.";

    /** {@code lpf.engine.net.bind}: the address the mesh listens on (connections are made on first use, while the job runs). */
    public static final Parameters.Parameter<String> BIND = ParameterRegistry.global().string(PREFIX + "bind", "127.0.0.1",
            "address the mesh listens on while the job runs (loopback unless told otherwise, e.g. 0.0.0.0 or a host's address)");
    /** {@code lpf.engine.net.setupMillis}: how long the processes may take to meet at the start, and one connection to be made. */
    public static final Parameters.Parameter<Integer> SETUP_MILLIS = ParameterRegistry.global().integer(PREFIX + "setupMillis",
            60_000, 100, 3_600_000, "ms the job's processes may take to meet at the start, and one connection to be made");
    /** {@code lpf.engine.net.syncTimeout}: the deadline on every wait of a sync. */
    public static final Parameters.Parameter<Integer> SYNC_TIMEOUT = ParameterRegistry.global().integer(PREFIX + "syncTimeout",
            0, 0, Integer.MAX_VALUE, "ms a process waits for another in a sync before it names it as stopped and the section fails (0: forever)");
    /** {@code lpf.engine.net.spinMicros}: how long a wait polls, since bytes last moved, before it blocks. */
    public static final Parameters.Parameter<Integer> SPIN_MICROS = ParameterRegistry.global().integer(PREFIX + "spinMicros",
            -1, -1, 1_000_000, "µs a wait polls its sockets, counted from when bytes last moved, before it blocks in select "
                    + "(-1: " + Mesh.SPIN_MICROS_OWN_CORE + " when each of the job's processes on this machine has a core, "
                    + Mesh.SPIN_MICROS_CROWDED + " when they outnumber its cores and the wait is on sockets; 0: block at once)");
    /**
     * {@code lpf.engine.net.wait}: whether a wait's spin ({@code spinMicros}) keeps its core or
     * yields it between polls. {@code spin}: keeps it, the quickest answer when every process has a
     * core. {@code yield}: yields it (and spins 20 µs on sockets unless {@code spinMicros} says
     * otherwise), for processes that share cores with others the engine cannot count: JVMs in
     * network namespaces of one machine, or beside another job. {@code auto}: yields when the
     * job's processes on this machine (by their addresses) outnumber its cores, or when a layered
     * engine asked for waits that yield. May differ between processes.
     */
    public static final Parameters.Parameter<String> WAIT = ParameterRegistry.global().choice(PREFIX + "wait", "auto",
            List.of("auto", "spin", "yield"),
            "whether a wait's spin keeps its core (spin) or yields it between polls (yield); auto: yield when the job's"
                    + " processes on this machine outnumber its cores");
    /**
     * The superstep protocol's parameters ({@code lpf.engine.net.pairsInRoundUpTo}, default 16;
     * {@code countExchange}; {@code sparseFrom}), declared as for every engine built on the
     * protocol ({@link ProtocolParameters}). Above {@code pairsInRoundUpTo}, the dense way is
     * Bruck's all-to-all of the counts ({@link NetTransport#alltoallLongs}: ⌈log2 p⌉ messages per
     * process, of up to p/2 longs each), the sparse way a consensus among the senders
     * ({@link NetTransport#exchangeNonzero}: a note and an acknowledgement per destination besides
     * its barrier), so the dense way sends fewer messages whatever the pattern and {@code sparseFrom}
     * defaults to 1024, where its bytes (4p⌈log2 p⌉ per process) begin to weigh.
     */
    public static final ProtocolParameters PROTOCOL = ProtocolParameters.declare(PREFIX, 16, 1024, "round",
            "Bruck's all-to-all, log2 p messages");
    /** {@code lpf.engine.net.pairsInRoundUpTo}: sections of at most this many processes send their streams before the round. */
    public static final Parameters.Parameter<Integer> PAIRS_IN_ROUND_UP_TO = PROTOCOL.pairsInRoundUpTo();
    /** {@code lpf.engine.net.countExchange}: how counts travel above {@code pairsInRoundUpTo} ({@code auto}, {@code sparse}, {@code dense}). */
    public static final Parameters.Parameter<String> COUNT_EXCHANGE = PROTOCOL.countExchange();
    /** {@code lpf.engine.net.sparseFrom}: the smallest section in which {@code countExchange=auto} may take the sparse way. */
    public static final Parameters.Parameter<Integer> SPARSE_FROM = PROTOCOL.sparseFrom();
    /** {@code lpf.engine.net.probeMillis}: the time budget of one probe measurement. */
    public static final Parameters.Parameter<Integer> PROBE_MILLIS = ParameterRegistry.global().integer(PREFIX + "probeMillis",
            400, 10, 600_000, "time budget of one g/l measurement by probe (milliseconds)");

    /** {@code lpf.engine.net.shm}: whether peers proven to share this host exchange frames through shared memory. */
    public static final Parameters.Parameter<Boolean> SHM = ParameterRegistry.global().bool(PREFIX + "shm", true,
            "peers on this host (the boot's address is this host's, same host identity, and both map the same file) exchange"
                    + " frames through shared-memory rings instead of TCP (false: TCP to every peer)");
    /** {@code lpf.engine.net.shmInJvm}: whether peers in one JVM (perJvm, tasks of one Spark executor) share rings in its memory. */
    public static final Parameters.Parameter<Boolean> SHM_IN_JVM = ParameterRegistry.global().bool(PREFIX + "shmInJvm", true,
            "with shm on, peers found to run in the same JVM (lpf.engine.net.perJvm, the tasks of one Spark executor) share"
                    + " rings in this JVM's memory, with no file (false: a file, as for peers in other JVMs)");
    /** {@code lpf.engine.net.shmBytes}: the shared memory of one pair of processes on a host. */
    public static final Parameters.Parameter<Integer> SHM_BYTES = ParameterRegistry.global().integer(PREFIX + "shmBytes",
            4 << 20, 16 << 10, 1 << 30, "bytes of shared memory per pair of processes on one host (three rings of equal size, a"
                    + " power of two each: two on the main connection, one on the large one; a larger payload streams through"
                    + " them in pieces)");
    /**
     * {@code lpf.engine.net.shmProcessBytes}: the shared memory one process gives its pairs on this
     * host together, at most half the shared-memory file system over the job's processes on the
     * host; a pair gets the smaller of {@link #SHM_BYTES} and this over the host's processes less
     * one, at least 16 KiB.
     */
    public static final Parameters.Parameter<Integer> SHM_PROCESS_BYTES = ParameterRegistry.global().integer(PREFIX + "shmProcessBytes",
            256 << 20, 16 << 10, Integer.MAX_VALUE, "bytes of shared memory one process gives all its pairs on one host"
                    + " together, and at most half the shared-memory file system over the job's processes on that host: a pair"
                    + " gets the smaller of lpf.engine.net.shmBytes and this / (processes on the host - 1), at least 16 KiB"
                    + " (the default leaves shmBytes whole up to 64 processes on a host)");
    /**
     * {@code lpf.engine.net.bufferProcessBytes}: the direct memory one process gives the buffers of
     * all its connections together; each of a connection's two buffers gets this over 4 (p - 1),
     * between 32 and 64 KiB.
     */
    public static final Parameters.Parameter<Integer> BUFFER_PROCESS_BYTES = ParameterRegistry.global().integer(
            PREFIX + "bufferProcessBytes", 32 << 20, 1 << 20, Integer.MAX_VALUE, "bytes of direct memory one process gives the"
                    + " buffers of its connections together (two per peer, an in and an out buffer each): each buffer gets this"
                    + " / (4 (p - 1)), between 32 and 64 KiB (the default leaves them at 64 KiB up to p = 129)");
    /** {@code lpf.engine.net.shmDir}: where a job's shared-memory directory is made. */
    public static final Parameters.Parameter<String> SHM_DIR = ParameterRegistry.global().string(PREFIX + "shmDir", "",
            "directory under which a job's 0700 shared-memory directory is made while a connection sets up its rings (empty:"
                    + " the launcher's directory if lpf run started the job, else /dev/shm)");

    /** {@code lpf.engine.net.showPaths}: whether each rank prints, as its mesh closes, its connections by path and the peers of each path. */
    public static final Parameters.Parameter<Boolean> SHOW_PATHS = ParameterRegistry.global().bool(PREFIX + "showPaths", false,
            "each rank prints on stderr, as its connections close (the job's end), how many take each path (in-JVM memory,"
                    + " shared-memory file, TCP) and the peers of each path's main connections");
    /** {@code lpf.engine.net.shmSingleCopy}: whether peers on this host read each other's large payloads in place. */
    public static final Parameters.Parameter<Boolean> SHM_SINGLE_COPY = ParameterRegistry.global().bool(PREFIX + "shmSingleCopy", true,
            "with shm on, a large put's payload or a get's replies (from native memory) go to a peer on this host in one copy:"
                    + " the peer reads them from this process's memory (Linux process_vm_readv, probed once per connection; where"
                    + " the kernel refuses, e.g. Yama ptrace_scope or a container, the rings carry them; false: always the rings)");
    /** {@code lpf.engine.net.shmSingleCopyFrom}: the smallest payload that {@code shmSingleCopy} moves in one copy. */
    public static final Parameters.Parameter<Integer> SHM_SINGLE_COPY_FROM = ParameterRegistry.global().integer(PREFIX
            + "shmSingleCopyFrom", 64 << 10, 1, Integer.MAX_VALUE, "bytes from which a large put's payload or a stream of get"
                    + " replies goes in one copy (shmSingleCopy); smaller ones go through the rings (two copies, no system call)");

    /** {@code lpf.engine.net.launchNodes}: the nodes {@code lpf run --nodes N} spreads the JVMs over (srun {@code -N}). */
    public static final Parameters.Parameter<Integer> LAUNCH_NODES = org.lpf4j.spi.kit.LaunchNodes.declare("net",
            "srun -N inside a Slurm allocation; 0: as srun places them; outside Slurm all JVMs run on this machine");

    /**
     * {@code lpf.engine.net.perJvm}: how many of the job's processes each JVM hosts, as threads with
     * a mesh each over real sockets ({@link JvmRanks}); {@code lpf run --engine net -p N} then starts
     * ⌈N / k⌉ JVMs. For scale tests of many processes on one machine (issue 41); programs see no
     * difference but shared statics.
     */
    public static final Parameters.Parameter<Integer> PER_JVM = ParameterRegistry.global().integer(PREFIX + "perJvm", 1, 1, 4096,
            "processes per JVM: lpf run -p N starts ceil(N / perJvm) JVMs, each hosting perJvm of the job's processes as threads, "
                    + "each with its own connections (for many processes on one machine)");

    /** @return this engine's parameters, for the provider's {@code open} */
    static List<Parameters.Parameter<?>> parameters() {
        return List.of(BIND, SETUP_MILLIS, SYNC_TIMEOUT, SPIN_MICROS, WAIT, PAIRS_IN_ROUND_UP_TO, COUNT_EXCHANGE, SPARSE_FROM, PROBE_MILLIS,
                LAUNCH_NODES, PER_JVM, BUFFER_PROCESS_BYTES, SHM, SHM_IN_JVM, SHM_BYTES, SHM_DIR, SHM_SINGLE_COPY, SHM_SINGLE_COPY_FROM, SHOW_PATHS);
    }
}
