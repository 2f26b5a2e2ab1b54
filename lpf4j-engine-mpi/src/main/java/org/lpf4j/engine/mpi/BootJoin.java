package org.lpf4j.engine.mpi;

import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.boot.FenceOptions;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Joins JVMs that no MPI launcher started into one MPI intracommunicator, over a boot session (as
 * C LPF's {@code lpf_mpi_initialize_over_tcp}): every JVM initialises MPI as a singleton if it is
 * not initialised yet; boot rank 0 opens a port ({@code MPI_Open_port}) and publishes its name
 * (put, commit, collect fence); then for k = 1 .. n-1 the group of ranks 0..k-1
 * {@code MPI_Comm_accept}s, rank k {@code MPI_Comm_connect}s, and both merge
 * ({@code MPI_Intercomm_merge}, the newcomer high), so the result holds every rank in boot-rank
 * order. One barrier fence per step keeps the connects in order (a port serves any waiting connect,
 * so two at once could join in the wrong order) and turns a failed peer into an exception (see
 * {@link #guarded}). Cost: n - 1 fences, accepts and merges; once per hook.
 */
final class BootJoin {
    private BootJoin() {}

    /**
     * Step k of the join on a process that takes part in it: the blocking {@code MPI_Comm_accept}
     * (ranks below k) or {@code MPI_Comm_connect} (rank k) runs on a daemon thread, because MPI
     * offers no timeout for them. Rank k enters the step's boot fence only once its connect
     * returned, so the ranks above k (waiting in that fence) connect only after rank k is in, and
     * the single port never pairs the wrong process. The acceptors sit in that fence meanwhile: if
     * rank k's connect fails it leaves the session, the fence fails, and they get an exception
     * instead of waiting forever in {@code MPI_Comm_accept}. A peer that hangs is bounded by
     * {@code timeout}. After a failure the native call stays blocked on its daemon thread and MPI
     * is unusable in this JVM.
     */
    private static long guarded(BootSession session, Duration timeout, int k, boolean connecting, LongSupplier call) {
        CompletableFuture<Long> joined = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                joined.complete(call.getAsLong());
            } catch (Throwable e) {
                joined.completeExceptionally(e);
            }
        }, "lpf-mpi-join-" + k);
        t.setDaemon(true);
        t.start();
        try {
            if (connecting) {
                long inter = joined.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                session.fence(FenceOptions.barrier().timeout(timeout));
                return inter;
            }
            CompletableFuture<Void> fence = session.fenceAsync(FenceOptions.barrier().timeout(timeout));
            CompletableFuture.anyOf(joined, fence).join();
            if (fence.isCompletedExceptionally()) fence.join(); // rank k failed or left: throws
            long inter = joined.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            fence.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return inter;
        } catch (CompletionException | ExecutionException e) {
            throw failure(k, e.getCause() == null ? e : e.getCause());
        } catch (TimeoutException e) {
            throw failure(k, new TimeoutException("no answer within " + timeout));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure(k, e);
        }
    }

    private static RuntimeException failure(int k, Throwable cause) {
        if (cause instanceof MpiException m) return m;
        return new IllegalStateException("hook(MpiEngine.init(session)): joining boot rank " + k
                + " into the MPI communicator failed: " + cause, cause);
    }

    /** The variable that points an Open MPI singleton at an {@code ompi-server}. */
    static final String OMPI_SERVER_URI = "OMPI_MCA_pmix_server_uri";

    /**
     * @param abi    the library's ABI label
     * @param uri    the value of {@value #OMPI_SERVER_URI} in this JVM, or null
     * @return what to run, for a failed join of Open MPI singletons that have no {@code ompi-server}; else null
     */
    static String ompiServerHint(String abi, String uri) {
        if (!MpiAbi.OPEN_MPI.label.equals(abi) || uri != null && !uri.isBlank()) return null;
        return "Open MPI (4.x) singletons connect only through an ompi-server, and " + OMPI_SERVER_URI + " is not set in this"
                + " JVM. Start one and point every JVM at it, e.g.: ompi-server --no-daemonize -r /tmp/lpf-ompi-server.uri &"
                + " (as root with OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1), then run every JVM with "
                + OMPI_SERVER_URI + "=file:/tmp/lpf-ompi-server.uri; or start the JVMs with mpirun instead of the boot"
                + " session";
    }

    /** The boot key the port name travels under. */
    static final String PORT_KEY = "lpf.engine.mpi.port";

    /**
     * @param mpi     the binding (MPI initialised here if it is not yet)
     * @param session the boot session of every JVM of the job
     * @param timeout bound of every boot fence and get
     * @return an intracommunicator of all the session's ranks, rank = boot rank, with {@code MPI_ERRORS_RETURN}
     */
    static long join(Mpi mpi, BootSession session, Duration timeout) {
        if (!mpi.initialized()) mpi.initThread(Mpi.THREAD_SERIALIZED);
        int rank = session.rank(), n = session.size();
        if (n == 1) { // nobody to join: no port (an MPI without MPI_Open_port still runs p = 1)
            long self = mpi.dup(mpi.commSelf());
            mpi.setErrorsReturn(self);
            return self;
        }
        String port = null;
        if (rank == 0) {
            port = mpi.openPort();
            session.put(PORT_KEY, port.getBytes(StandardCharsets.UTF_8));
        }
        session.commit();
        session.fence(FenceOptions.collect().timeout(timeout));
        if (rank != 0) port = new String(session.get(0, PORT_KEY, timeout), StandardCharsets.UTF_8);
        String portName = port;
        long comm = mpi.dup(mpi.commSelf());
        mpi.setErrorsReturn(comm);
        for (int k = 1; k < n; k++) {
            if (rank > k) {
                session.fence(FenceOptions.barrier().timeout(timeout)); // step k done
                continue;
            }
            long current = comm;
            long inter;
            try {
                inter = rank < k ? guarded(session, timeout, k, false, () -> mpi.accept(portName, 0, current))
                        : guarded(session, timeout, k, true, () -> mpi.connect(portName, 0, current));
            } catch (RuntimeException e) {
                String hint = ompiServerHint(mpi.abiName(), System.getenv(OMPI_SERVER_URI));
                if (hint == null) throw e;
                throw new IllegalStateException("hook(MpiEngine.init(session)): boot rank " + rank + " could not join boot rank "
                        + k + " (" + e.getMessage() + "). " + hint, e);
            }
            long merged = mpi.merge(inter, rank == k);
            mpi.free(inter);
            mpi.free(comm);
            comm = merged;
            mpi.setErrorsReturn(comm);
        }
        if (rank == 0) mpi.closePort(port);
        int got = mpi.rank(comm), size = mpi.size(comm);
        if (got != rank || size != n) {
            throw new IllegalStateException("hook(MpiEngine.init(session)): joined communicator has rank " + got + " of " + size
                    + ", expected boot rank " + rank + " of " + n);
        }
        return comm;
    }
}
