/**
 * The MPI engine: every lpf4j program, unchanged, on an MPI job (Open MPI or MPICH), calling libmpi
 * through {@code java.lang.foreign} only.
 *
 * <h2>Structure</h2>
 * <ul>
 *   <li>{@code MpiLibrary} finds libmpi ({@code lpf.engine.mpi.library}, else {@code libmpi.so.40},
 *       then {@code libmpich.so.12}) and opens it with {@code dlopen(RTLD_NOW | RTLD_GLOBAL)} through a
 *       downcall into libc, so that Open MPI's components ({@code mca_*.so}) resolve libmpi's symbols.
 *       Before that it sets {@code UCX_ERROR_SIGNALS} to empty in the C environment unless it is set:
 *       UCX (under MPICH) installs SIGSEGV/SIGBUS/SIGILL/SIGFPE handlers while the library loads, and
 *       the JVM's own SIGSEGVs (implicit null checks, safepoint polls) would then end it in UCX's
 *       error handler; so a program started by hand ({@code mpiexec.mpich -n 8 java ...}) is as safe
 *       as one {@code lpf run} starts (UcxSignalsTest).
 *       {@code MpiAbi} is the only place that knows the two ABIs (Open MPI: handles are pointers,
 *       predefined ones the addresses of exported globals such as {@code ompi_mpi_comm_world};
 *       MPICH: {@code int} handles, predefined ones constants of its {@code mpi.h}, e.g.
 *       {@code MPI_COMM_WORLD = 0x44000000}, {@code MPI_BYTE = 0x4c00010d}); {@link org.lpf4j.engine.mpi.Mpi}
 *       is the binding, every handle a Java {@code long} (for Open MPI the pointer, for MPICH the
 *       {@code int}), every call checked ({@code MPI_ERRORS_RETURN} on every communicator and window
 *       the engine makes) and failing with an {@link org.lpf4j.engine.mpi.MpiException} naming the call.</li>
 *   <li>{@code MpiRuntime}: MPI initialised once ({@code MPI_THREAD_SERIALIZED}: one thread calls
 *       MPI at a time), the version agreement over all ranks ({@link org.lpf4j.spi.Agreement} plus
 *       the MPI library and its version string), rank 0's root and the other ranks' service loop
 *       ({@code EXEC} of a serialized SPMD function and symbols, {@code SPLIT} for the communicator
 *       of the first p ranks, {@code STOP} from rank 0's shutdown hook). Waiting ranks poll with
 *       {@code MPI_Iprobe} and sleep up to 1 ms between polls, so idle ranks leave the cores free.</li>
 *   <li>{@code MpiContext}: one process of a section over its own duplicated communicator, on the
 *       engine kit (slot register, staged capacities, argument rules, probe harness).
 *       {@code Exchange}: the data phase of a sync. {@code SyncDeadline}: with
 *       {@code lpf.engine.mpi.syncTimeout} on, every wait of a sync polls nonblocking calls and
 *       names the processes that do not reach the sync in time (they are asked on a reserved tag;
 *       a stopped one is recognised in {@code /proc}). {@code Sections}: running a process's part of a
 *       section, nested sections (on the threads engine in this JVM with the caller's share of the
 *       job as freeP, else one process over {@code MPI_COMM_SELF}).</li>
 *   <li>{@link org.lpf4j.engine.mpi.MpiLauncher}: the command lines ({@code mpirun} of Open MPI,
 *       {@code mpiexec.mpich}, or {@code srun} inside a Slurm allocation ({@code lpf.engine.mpi.launcher};
 *       {@code Slurm} tells an allocation from a task of a step, and gives the PMIx or PMI-2 plugin the
 *       library needs); the launcher that belongs to the library, or a refusal
 *       naming the one missing: under another MPI's launcher every rank would be an MPI job of one
 *       process, and {@code MpiRuntime} refuses such a rank at start) with what JVMs need: {@code --allow-run-as-root} as
 *       root, {@code --oversubscribe}, {@code --bind-to none}, {@code UCX_ERROR_SIGNALS=} (UCX under
 *       MPICH would take over the SIGSEGV the JVM uses for null checks; Open MPI does not replace
 *       handlers that exist), {@code --enable-native-access}; the command {@code lpf run} starts
 *       is wrapped so that the report of a rank that died is printed after the launcher ends
 *       ({@code RankGuard}).</li>
 * </ul>
 *
 * <h2>Sync: message passing, chosen by measurement</h2>
 * A sync is an {@code MPI_Allreduce(BOR)} of one word (I queued something / I am ending / I am in
 * rehook): an empty superstep costs that allreduce alone. The receivers must learn which processes
 * pack requests for them, and how many bytes. In a section of at most
 * {@code lpf.engine.mpi.pairsInRoundUpTo} processes every process that queued requests sends each
 * destination its packed stream (length first) <em>before</em> the allreduce, which carries the
 * p × p bits of who sends to whom (each process writes its own row, so the OR is the matrix): the
 * streams travel while the allreduce runs, and the receivers take them in as soon as it ends. In
 * larger sections a sync with messages continues after the allreduce with an {@code MPI_Alltoall}
 * of one long per pair or, in a sparse superstep of a section of at least
 * {@code lpf.engine.mpi.sparseFrom} processes, a nonblocking consensus among the senders
 * ({@code lpf.engine.mpi.countExchange}), and the streams follow. The limit keeps the allreduce
 * within 256 bytes, above which Open MPI takes a slower algorithm (figures:
 * {@code docs/performance.md}). Then
 * comes one packed stream per pair (every request's header and the payload of puts below
 * 16 KiB; sent before the allreduce, a stream of more than 4 KiB goes as two messages), one message per large put (sent from the user's native segment in place) and one reply
 * stream per pair for gets. The destination applies all writes to its own memory: a large put is
 * received straight into the destination only if its area overlaps no other such receive and no
 * area this process is still sending from; all other writes are applied after every transfer has
 * completed, in the order (source pid, queue order), and gets are served before anything is
 * written. So <b>write conflicts end as a serialisation</b> (puts to overlapping areas, puts and
 * gets of one area) with no locking. Heap segments work as sources and destinations: they are
 * copied through native buffers (one extra copy of the payload each way); native segments are
 * sent and received in place when the rule above allows.
 *
 * <p>Why not RMA windows (C LPF's {@code mpirma}): MPI leaves concurrent {@code MPI_Put}s to
 * overlapping target areas undefined (they may byte-mix), so conflicts would need an ordering
 * protocol on top; every global registration would need a collective {@code MPI_Win_create}; and on
 * Debian, Open MPI's {@code openmpi-mca-params.conf} disables {@code osc pt2pt}, so windows between
 * hosts over TCP fail (only the shared-memory path works). The figures did not argue for windows
 * either: point-to-point moves a large put as fast as RMA does on the machines measured, and the
 * small-message path needs a count exchange in either design.
 *
 * <p>{@code lpf bench --engine mpi} runs the engine's workloads beside raw MPI through the same
 * binding on the same communicator (the tools' {@code LaunchedBench} over this engine's
 * {@link org.lpf4j.spi.RawTransport}, {@code MpiRawTransport}): empty sync beside {@code MPI_Barrier}
 * (target: at most 2x its time), 1 MiB put + sync beside {@code MPI_Put} + {@code MPI_Win_fence}
 * (target: at least 0.9x its bandwidth) and beside {@code MPI_Isend}/{@code MPI_Irecv}, which is
 * the engine's own transfer of a large put. On one host a single-copy transfer between two
 * processes is bounded by the kernel's {@code process_vm_readv} (CMA), for MPI and this engine
 * alike. The figures, and the raw MPI yardstick ({@code RawMpiBench} in the engine's tests), are
 * in {@code docs/performance.md}.
 *
 * <h2>Failure</h2>
 * A process whose SPMD function returns or throws contributes "ending" to the next round; every
 * process then learns everyone's status in a second allreduce: the section is over, syncs
 * elsewhere throw {@link org.lpf4j.FatalException}, and the exceptions travel to pid 0 (serialized;
 * as text if they do not serialize), so {@code exec} throws them. After a failed section a last
 * round carries what processes threw afterwards. No process ever waits for one that left. A rank
 * that runs out of heap throws {@link java.lang.OutOfMemoryError} like any other exception (FaultTest:
 * rank 1 of 3, the section ends within 5 s and {@code exec} names it). A rank killed by a signal is
 * the launcher's business: {@code mpirun} and Hydra end the whole job (measured: under 5 s, see
 * FaultTest), and {@code RankGuard} names the rank under both: a small process per rank, started
 * before {@code MPI_Init}, that reports its JVM's death unless the JVM said goodbye at a normal
 * end. The ranks of a host share a {@code DeathLatch}, a System V semaphore set in which the
 * kernel records the first death (while the dying process exits, before anything can notice it),
 * so the ranks the launcher kills afterwards are not named however late the dead rank's guard runs;
 * {@code lpf run} prints the report after the launcher has ended. {@code rehook} starts
 * with a round of the parent, so a mismatch with a sync fails both sides instead of mixing
 * collectives.
 *
 * <h2>Combining puts</h2>
 * {@link org.lpf4j.Capability#COMBINING_PUTS} is supported. The operator is a Java object at the
 * source, so {@code CombinerTable} ships it serialized to each destination once per attribute
 * (ahead of the first put that uses it; afterwards an id travels in the request's header), and the
 * destination applies combining puts with the other writes, in (source pid, queue order). The
 * operator must be {@link java.io.Serializable} (a lambda of a serializable interface is; the
 * collectives' operators are); one that is not is refused at the put with an
 * {@code IllegalArgumentException} saying so. Tested by EngineTest (sum and max into every process,
 * packed and large, native and heap destinations) and by the collectives suite's reductions.
 *
 * <h2>Limits</h2>
 * {@code Spmd} functions, symbols and combining operators must be serializable; code before
 * {@code Lpf.root()} in {@code main} runs on every rank.
 *
 * <h2>Hook over a boot session (JVMs no MPI launcher started)</h2>
 * {@code Lpf.hook(MpiEngine.init(bootSession), spmd, args)}, as C LPF's
 * {@code lpf_mpi_initialize_over_tcp}: every JVM initialises MPI as a singleton, boot rank 0 opens a
 * port and publishes its name in the session, and the ranks join one by one
 * ({@code MPI_Comm_accept}/{@code MPI_Comm_connect}, {@code MPI_Intercomm_merge}) into one
 * intracommunicator in boot-rank order ({@code BootJoin}); one boot fence per step keeps the order
 * and turns a failing peer into an exception on every rank (MPI has no timeout for accept/connect).
 * What works on this machine (Debian packages; BootHookTest, 3 separate JVMs, tcp boot on loopback):
 * <ul>
 *   <li>Open MPI 4.1.4: singletons connect only through an {@code ompi-server} ({@code ompi-server
 *       --no-daemonize -r FILE}, every JVM with {@code OMPI_MCA_pmix_server_uri=file:FILE}); then the
 *       ring runs (about 2 s for p = 3, mostly singleton start-up). Without it {@code MPI_Comm_connect}
 *       fails ("requires the support of the ompi-server tool") and every rank ends with an exception
 *       within a few seconds.</li>
 *   <li>MPICH 4.0.2 as Debian builds it ({@code ch4:ucx} only): {@code MPI_Open_port} is not
 *       supported by the UCX netmod ("The function is currently not supported with ucx netmod"), so
 *       the hook fails at once on every rank naming the call. An MPICH built with {@code ch4:ofi} or
 *       {@code ch3} should work (not tried here).</li>
 * </ul>
 * MPI is left initialised after the hook (a singleton whose peers may be gone cannot finalize
 * safely); a failed join leaves a native accept/connect blocked on a daemon thread, so MPI is
 * unusable in that JVM afterwards.
 */
package org.lpf4j.engine.mpi;
