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
 *   <li>{@code MpiContext}: one process of a section over its own duplicated communicator: the
 *       superstep protocol of {@code org.lpf4j.superstep} (the round, the exchange, the failure
 *       causes) over {@code MpiTransport} ({@code MPI_Allreduce}, {@code MPI_Isend}/{@code MPI_Irecv},
 *       {@code MPI_Alltoall}, a nonblocking consensus; every tag in {@code MpiTags}).
 *       {@code SyncDeadline}: with {@code lpf.engine.mpi.syncTimeout} on, every wait of a sync polls
 *       nonblocking calls and names the processes that do not reach the sync in time (they are
 *       asked on a reserved tag; a stopped one is recognised in {@code /proc}). {@code Sections}:
 *       running a process's part of a section, nested sections (on the threads engine in this JVM
 *       with the caller's share of the job as freeP, else one process over {@code MPI_COMM_SELF}).</li>
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
 * <h2>Sync and failure</h2>
 * The protocol's ({@code org.lpf4j.superstep}): message passing, write conflicts resolved as a
 * serialisation. Why message passing and not RMA windows, and the figures behind the choices
 * ({@code pairsInRoundUpTo}, the sparse way, the eager chunk), are in {@code docs/performance.md}
 * ("MPI engine: design and figures"). A rank killed by a signal is the launcher's business:
 * {@code mpirun} and Hydra end the whole job, and {@code RankGuard} names the rank under both (a
 * small process per rank, started before {@code MPI_Init}, that reports its JVM's death unless the
 * JVM said goodbye at a normal end; the ranks of a host share a {@code DeathLatch}, a System V
 * semaphore set in which the kernel records the first death, so ranks the launcher kills
 * afterwards are not named). {@code lpf run} prints the report after the launcher has ended.
 *
 * <h2>Combining puts</h2>
 * {@link org.lpf4j.Capability#COMBINING_PUTS} is supported: the operator travels serialized to
 * each destination once per attribute; one that is not {@link java.io.Serializable} is refused at
 * the put with an {@code IllegalArgumentException} saying so.
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
 * Open MPI's singletons connect only through an {@code ompi-server}; Debian's MPICH (UCX netmod)
 * does not support {@code MPI_Open_port}, so there the hook fails at once on every rank naming the
 * call (details in {@code docs/performance.md}, "MPI engine: design and figures").
 * MPI is left initialised after the hook (a singleton whose peers may be gone cannot finalize
 * safely); a failed join leaves a native accept/connect blocked on a daemon thread, so MPI is
 * unusable in that JVM afterwards.
 */
package org.lpf4j.engine.mpi;
