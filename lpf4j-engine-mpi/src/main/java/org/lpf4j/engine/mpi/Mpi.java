package org.lpf4j.engine.mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The binding to libmpi through {@code java.lang.foreign}: the MPI calls the engine makes, with every
 * handle ({@code MPI_Comm}, {@code MPI_Datatype}, {@code MPI_Op}, {@code MPI_Win}, ...) a Java
 * {@code long} whatever the ABI ({@link MpiAbi}). Each call checks the return code and throws
 * {@link MpiException} naming the call (after {@link #initThread} the communicators it makes return
 * errors instead of aborting; windows get {@code MPI_ERRORS_RETURN} when made).
 *
 * <p>Not thread-safe: one thread calls MPI at a time ({@code MPI_THREAD_SERIALIZED} is asked for);
 * the out-parameter scratch memory is shared. Buffers must be native segments (no heap arrays).
 * Cost: one downcall per method (a few ns on top of MPI), no allocation on the communication calls.
 */
public final class Mpi {
    /** MPI's {@code MPI_THREAD_SERIALIZED}, the same value in both ABIs. */
    public static final int THREAD_SERIALIZED = 2;
    /** Marker for a handle parameter in {@link #fn}. */
    private static final Object H = new Object();
    /**
     * A pointer parameter passed as its address in a {@code long} (LP64: the same registers as a
     * pointer): the communication calls take raw addresses so that they allocate nothing.
     */
    private static final ValueLayout P = JAVA_LONG;

    private static volatile Mpi instance;

    final MpiLibrary library;
    final MpiAbi abi;
    final MpiAbi.Constants c;
    private final Arena arena = Arena.global();
    /** Scratch for int and handle out-parameters. */
    private final MemorySegment outInt = arena.allocate(JAVA_INT, 2), outHandle = arena.allocate(JAVA_LONG);
    private final MemorySegment statusesIgnore;
    /** Scratch for the {@code MPI_Status} of {@link #iprobeAnySource}. */
    private final MemorySegment status = arena.allocate(64, 8);

    private final MethodHandle initialized, finalized, initThread, queryThread, finalizeH, abort, commRank, commSize,
            commSetErrhandler, commSplit, commDup, commIdup, commFree, barrier, bcast, send, recv, winCreate, winSetErrhandler, put, winFence, winFree, getLibraryVersion,
            errorString, wtime, iprobe, openPort, closePort, commAccept, commConnect, intercommMerge;

    private Mpi(MpiLibrary library) {
        this.library = library;
        this.abi = library.abi;
        this.c = abi.constants(library.lookup);
        this.statusesIgnore = MemorySegment.ofAddress(c.statusesIgnore());
        initialized = fn("MPI_Initialized", ADDRESS);
        finalized = fn("MPI_Finalized", ADDRESS);
        initThread = fn("MPI_Init_thread", ADDRESS, ADDRESS, JAVA_INT, ADDRESS);
        queryThread = fn("MPI_Query_thread", ADDRESS);
        finalizeH = fn("MPI_Finalize");
        abort = fn("MPI_Abort", H, JAVA_INT);
        commRank = fn("MPI_Comm_rank", H, ADDRESS);
        commSize = fn("MPI_Comm_size", H, ADDRESS);
        commSetErrhandler = fn("MPI_Comm_set_errhandler", H, H);
        commSplit = fn("MPI_Comm_split", H, JAVA_INT, JAVA_INT, ADDRESS);
        commDup = fn("MPI_Comm_dup", H, ADDRESS);
        commIdup = fn("MPI_Comm_idup", H, ADDRESS, P);
        commFree = fn("MPI_Comm_free", ADDRESS);
        barrier = fn("MPI_Barrier", H);
        bcast = fn("MPI_Bcast", ADDRESS, JAVA_INT, H, JAVA_INT, H);
        send = fn("MPI_Send", ADDRESS, JAVA_INT, H, JAVA_INT, JAVA_INT, H);
        recv = fn("MPI_Recv", ADDRESS, JAVA_INT, H, JAVA_INT, JAVA_INT, H, ADDRESS);
        iprobe = fn("MPI_Iprobe", JAVA_INT, JAVA_INT, H, ADDRESS, ADDRESS);
        winCreate = fn("MPI_Win_create", ADDRESS, JAVA_LONG, JAVA_INT, H, H, ADDRESS);
        winSetErrhandler = fn("MPI_Win_set_errhandler", H, H);
        put = fn("MPI_Put", P, JAVA_INT, H, JAVA_INT, JAVA_LONG, JAVA_INT, H, H);
        winFence = fn("MPI_Win_fence", JAVA_INT, H);
        winFree = fn("MPI_Win_free", ADDRESS);
        getLibraryVersion = fn("MPI_Get_library_version", ADDRESS, ADDRESS);
        errorString = fn("MPI_Error_string", JAVA_INT, ADDRESS, ADDRESS);
        openPort = fn("MPI_Open_port", H, ADDRESS);
        closePort = fn("MPI_Close_port", ADDRESS);
        commAccept = fn("MPI_Comm_accept", ADDRESS, H, JAVA_INT, H, ADDRESS);
        commConnect = fn("MPI_Comm_connect", ADDRESS, H, JAVA_INT, H, ADDRESS);
        intercommMerge = fn("MPI_Intercomm_merge", H, JAVA_INT, ADDRESS);
        Linker linker = Linker.nativeLinker();
        wtime = linker.downcallHandle(library.lookup.findOrThrow("MPI_Wtime"), FunctionDescriptor.of(JAVA_DOUBLE));
    }

    /**
     * The downcalls of the sync path, as {@code static final} constants the JIT can inline through:
     * made when the first of them is called, from the one library this JVM loaded ({@link #load}).
     */
    private static final class SyncPath {
        private SyncPath() {}

        static final MethodHandle ALLTOALL = instance.fn("MPI_Alltoall", P, JAVA_INT, H, P, JAVA_INT, H, H);
        static final MethodHandle ALLREDUCE = instance.fn("MPI_Allreduce", P, P, JAVA_INT, H, H, H);
        static final MethodHandle ISEND = instance.fn("MPI_Isend", P, JAVA_INT, H, JAVA_INT, JAVA_INT, H, P);
        static final MethodHandle IRECV = instance.fn("MPI_Irecv", P, JAVA_INT, H, JAVA_INT, JAVA_INT, H, P);
        static final MethodHandle WAITALL = instance.fn("MPI_Waitall", JAVA_INT, P, P);
        static final MethodHandle ISSEND = instance.fn("MPI_Issend", P, JAVA_INT, H, JAVA_INT, JAVA_INT, H, P);
        static final MethodHandle IBARRIER = instance.fn("MPI_Ibarrier", H, P);
        static final MethodHandle TESTALL = instance.fn("MPI_Testall", JAVA_INT, P, P, P);
        static final MethodHandle IPROBE = instance.fn("MPI_Iprobe", JAVA_INT, JAVA_INT, H, P, P);
        static final MethodHandle RECV = instance.fn("MPI_Recv", P, JAVA_INT, H, JAVA_INT, JAVA_INT, H, P);
        static final MethodHandle IALLREDUCE = instance.fn("MPI_Iallreduce", P, P, JAVA_INT, H, H, H, P);
        static final MethodHandle IALLTOALL = instance.fn("MPI_Ialltoall", P, JAVA_INT, H, P, JAVA_INT, H, H, P);
    }

    /**
     * @param path the library path, or {@code null} for the usual sonames
     * @return the binding of this JVM (loaded once; MPI itself is not initialised by this call)
     */
    public static Mpi load(String path) {
        Mpi m = instance;
        if (m != null) return m;
        synchronized (Mpi.class) {
            if (instance == null) instance = new Mpi(MpiLibrary.load(path));
            return instance;
        }
    }

    /**
     * A downcall returning {@code int} (an MPI error code) whose {@link #H} parameters take a Java
     * {@code long}: for Open MPI a pointer made from it, for MPICH the {@code int} it holds.
     */
    private MethodHandle fn(String name, Object... params) {
        MemoryLayout[] layouts = new MemoryLayout[params.length];
        for (int i = 0; i < params.length; i++) layouts[i] = params[i] == H ? abi.handleLayout : (MemoryLayout) params[i];
        MethodHandle mh = Linker.nativeLinker().downcallHandle(library.lookup.findOrThrow(name),
                FunctionDescriptor.of(JAVA_INT, layouts));
        MethodType uniform = mh.type();
        for (int i = 0; i < params.length; i++) {
            if (params[i] == H) uniform = uniform.changeParameterType(i, long.class);
        }
        return MethodHandles.explicitCastArguments(mh, uniform); // MPICH: long -> int, no allocation
    }

    private void check(String call, int rc) {
        if (rc != 0) throw new MpiException(call, rc, errorText(rc));
    }

    /** The failure of a hot call: the message is built only now. */
    private MpiException failed(String call, int rc) {
        return new MpiException(call, rc, errorText(rc));
    }

    private static RuntimeException rethrow(String call, Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(call, t);
    }

    /** @return MPI's text for an error code */
    public String errorText(int code) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(c.maxErrorString() + 1L);
            MemorySegment len = a.allocate(JAVA_INT);
            int rc = (int) errorString.invokeExact(code, buf, len);
            return rc == 0 ? buf.getString(0) : "(no text: MPI_Error_string returned " + rc + ")";
        } catch (Throwable t) {
            throw rethrow("MPI_Error_string", t);
        }
    }

    // ---- environment ----

    /** @return the ABI of the library loaded */
    public String abiName() { return abi.label; }

    /** @return the library file name or path that was loaded */
    public String libraryName() { return library.name; }

    /** @return {@code MPI_COMM_WORLD} */
    public long commWorld() { return c.commWorld(); }

    /** @return whether {@code MPI_Init*} has been called */
    public boolean initialized() {
        try {
            check("MPI_Initialized", (int) initialized.invokeExact(outInt));
            return outInt.get(JAVA_INT, 0) != 0;
        } catch (Throwable t) {
            throw rethrow("MPI_Initialized", t);
        }
    }

    /** @return whether {@code MPI_Finalize} has been called */
    public boolean finalized() {
        try {
            check("MPI_Finalized", (int) finalized.invokeExact(outInt));
            return outInt.get(JAVA_INT, 0) != 0;
        } catch (Throwable t) {
            throw rethrow("MPI_Finalized", t);
        }
    }

    /**
     * {@code MPI_Init_thread(NULL, NULL, required, &provided)}, then {@code MPI_ERRORS_RETURN} on
     * {@code MPI_COMM_WORLD} (and so on every communicator derived from it).
     *
     * @param required the thread level asked for
     * @return the thread level granted
     */
    public int initThread(int required) {
        try {
            check("MPI_Init_thread(required=" + required + ")",
                    (int) initThread.invokeExact(MemorySegment.NULL, MemorySegment.NULL, required, outInt));
            int provided = outInt.get(JAVA_INT, 0);
            setErrorsReturn(c.commWorld());
            return provided;
        } catch (Throwable t) {
            throw rethrow("MPI_Init_thread", t);
        }
    }

    /** @return the thread level of the running MPI ({@code MPI_Query_thread}) */
    public int queryThread() {
        try {
            check("MPI_Query_thread", (int) queryThread.invokeExact(outInt));
            return outInt.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow("MPI_Query_thread", t);
        }
    }

    /** Installs {@code MPI_ERRORS_RETURN} on a communicator. */
    public void setErrorsReturn(long comm) {
        try {
            check("MPI_Comm_set_errhandler(MPI_ERRORS_RETURN)", (int) commSetErrhandler.invokeExact(comm, c.errorsReturn()));
        } catch (Throwable t) {
            throw rethrow("MPI_Comm_set_errhandler", t);
        }
    }

    /** {@code MPI_Finalize}. */
    public void finish() {
        try {
            check("MPI_Finalize", (int) finalizeH.invokeExact());
        } catch (Throwable t) {
            throw rethrow("MPI_Finalize", t);
        }
    }

    /** {@code MPI_Abort(comm, code)}: ends the whole job. */
    public void abort(long comm, int code) {
        try {
            int rc = (int) abort.invokeExact(comm, code);
            check("MPI_Abort", rc);
        } catch (Throwable t) {
            throw rethrow("MPI_Abort", t);
        }
    }

    /** @return {@code MPI_Get_library_version}, first line */
    public String libraryVersion() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(c.maxLibraryVersionString() + 1L);
            check("MPI_Get_library_version", (int) getLibraryVersion.invokeExact(buf, outInt));
            return buf.getString(0).strip();
        } catch (Throwable t) {
            throw rethrow("MPI_Get_library_version", t);
        }
    }

    /** @return {@code MPI_Wtime()} in seconds */
    public double wtime() {
        try {
            return (double) wtime.invokeExact();
        } catch (Throwable t) {
            throw rethrow("MPI_Wtime", t);
        }
    }

    // ---- communicators ----

    /** @return {@code MPI_Comm_rank} */
    public int rank(long comm) {
        try {
            check("MPI_Comm_rank", (int) commRank.invokeExact(comm, outInt));
            return outInt.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow("MPI_Comm_rank", t);
        }
    }

    /** @return {@code MPI_Comm_size} */
    public int size(long comm) {
        try {
            check("MPI_Comm_size", (int) commSize.invokeExact(comm, outInt));
            return outInt.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow("MPI_Comm_size", t);
        }
    }

    /** @return {@code MPI_Comm_split(comm, color, key)}; {@link #commNull()} for color {@code MPI_UNDEFINED} */
    public long split(long comm, int color, int key) {
        try {
            check("MPI_Comm_split(color=" + color + ", key=" + key + ")", (int) commSplit.invokeExact(comm, color, key, outHandle));
            return abi.read(outHandle);
        } catch (Throwable t) {
            throw rethrow("MPI_Comm_split", t);
        }
    }

    /** @return {@code MPI_Comm_dup(comm)} */
    public long dup(long comm) {
        try {
            check("MPI_Comm_dup", (int) commDup.invokeExact(comm, outHandle));
            return abi.read(outHandle);
        } catch (Throwable t) {
            throw rethrow("MPI_Comm_dup", t);
        }
    }

    /**
     * {@code MPI_Comm_idup(comm)}: the duplicate's handle is written to {@code newcomm} (one
     * handle, valid until the request completes) by the time the request at {@code request}
     * completes; read it with {@link #handle}.
     */
    public void idup(long comm, MemorySegment newcomm, long request) {
        try {
            check("MPI_Comm_idup", (int) commIdup.invokeExact(comm, newcomm, request));
        } catch (Throwable t) {
            throw rethrow("MPI_Comm_idup", t);
        }
    }

    /** @return the handle held in {@code seg} (written by a call such as {@link #idup}) */
    public long handle(MemorySegment seg) { return abi.read(seg); }

    /** {@code MPI_Comm_free}. */
    public void free(long comm) {
        try {
            write(outHandle, comm);
            check("MPI_Comm_free", (int) commFree.invokeExact(outHandle));
        } catch (Throwable t) {
            throw rethrow("MPI_Comm_free", t);
        }
    }

    /** @return {@code MPI_COMM_SELF} */
    public long commSelf() { return c.commSelf(); }

    /** @return {@code MPI_COMM_NULL} */
    public long commNull() { return c.commNull(); }

    private void write(MemorySegment seg, long handle) {
        if (abi == MpiAbi.OPEN_MPI) seg.set(JAVA_LONG, 0, handle);
        else seg.set(JAVA_INT, 0, (int) handle);
    }

    // ---- collectives and point-to-point ----

    /** {@code MPI_Barrier}. */
    public void barrier(long comm) {
        try {
            check("MPI_Barrier", (int) barrier.invokeExact(comm));
        } catch (Throwable t) {
            throw rethrow("MPI_Barrier", t);
        }
    }

    /** {@code MPI_Alltoall} of {@code count} bytes per pair. */
    public void alltoallBytes(MemorySegment send, MemorySegment recv, int count, long comm) {
        alltoallBytes(send.address(), recv.address(), count, comm);
    }

    /** {@code MPI_Alltoall} of {@code count} bytes per pair, buffers by address. Allocates nothing. */
    public void alltoallBytes(long send, long recv, int count, long comm) {
        int rc;
        try {
            rc = (int) SyncPath.ALLTOALL.invokeExact(send, count, c.byteType(), recv, count, c.byteType(), comm);
        } catch (Throwable t) {
            throw rethrow("MPI_Alltoall", t);
        }
        if (rc != 0) throw failed("MPI_Alltoall(count=" + count + ")", rc);
    }

    /** {@code MPI_Allreduce} of {@code count} longs with {@code MPI_SUM}, {@code MPI_BOR} or {@code MPI_MAX}. */
    public void allreduceLongs(MemorySegment send, MemorySegment recv, int count, long op, long comm) {
        allreduceLongs(send.address(), recv.address(), count, op, comm);
    }

    /** {@code MPI_Allreduce} of {@code count} longs, buffers by address. Allocates nothing. */
    public void allreduceLongs(long send, long recv, int count, long op, long comm) {
        int rc;
        try {
            rc = (int) SyncPath.ALLREDUCE.invokeExact(send, recv, count, c.longType(), op, comm);
        } catch (Throwable t) {
            throw rethrow("MPI_Allreduce", t);
        }
        if (rc != 0) throw failed("MPI_Allreduce(count=" + count + ")", rc);
    }

    /**
     * {@code MPI_Iallreduce} of {@code count} longs, buffers by address; the request handle is
     * written at {@code request}. Allocates nothing.
     */
    public void iallreduceLongs(long send, long recv, int count, long op, long comm, long request) {
        int rc;
        try {
            rc = (int) SyncPath.IALLREDUCE.invokeExact(send, recv, count, c.longType(), op, comm, request);
        } catch (Throwable t) {
            throw rethrow("MPI_Iallreduce", t);
        }
        if (rc != 0) throw failed("MPI_Iallreduce(count=" + count + ")", rc);
    }

    /**
     * {@code MPI_Ialltoall} of {@code count} bytes per pair, buffers by address; the request handle
     * is written at {@code request}. Allocates nothing.
     */
    public void ialltoallBytes(long send, long recv, int count, long comm, long request) {
        int rc;
        try {
            rc = (int) SyncPath.IALLTOALL.invokeExact(send, count, c.byteType(), recv, count, c.byteType(), comm, request);
        } catch (Throwable t) {
            throw rethrow("MPI_Ialltoall", t);
        }
        if (rc != 0) throw failed("MPI_Ialltoall(count=" + count + ")", rc);
    }

    /** @return {@code MPI_SUM} */
    public long opSum() { return c.opSum(); }
    /** @return {@code MPI_BOR} */
    public long opBor() { return c.opBor(); }
    /** @return {@code MPI_MAX} */
    public long opMax() { return c.opMax(); }

    /** {@code MPI_Bcast} of {@code count} bytes from {@code root}. */
    public void bcastBytes(MemorySegment buf, int count, int root, long comm) {
        try {
            check("MPI_Bcast(count=" + count + ", root=" + root + ")", (int) bcast.invokeExact(buf, count, c.byteType(), root, comm));
        } catch (Throwable t) {
            throw rethrow("MPI_Bcast", t);
        }
    }

    /** {@code MPI_Send} of {@code count} bytes. */
    public void sendBytes(MemorySegment buf, int count, int dest, int tag, long comm) {
        try {
            check("MPI_Send(count=" + count + ", dest=" + dest + ", tag=" + tag + ")",
                    (int) send.invokeExact(buf, count, c.byteType(), dest, tag, comm));
        } catch (Throwable t) {
            throw rethrow("MPI_Send", t);
        }
    }

    /** {@code MPI_Recv} of up to {@code count} bytes, status ignored. */
    public void recvBytes(MemorySegment buf, int count, int source, int tag, long comm) {
        try {
            check("MPI_Recv(count=" + count + ", source=" + source + ", tag=" + tag + ")",
                    (int) recv.invokeExact(buf, count, c.byteType(), source, tag, comm, statusesIgnore));
        } catch (Throwable t) {
            throw rethrow("MPI_Recv", t);
        }
    }

    /** @return whether a message from {@code source} with {@code tag} can be received now ({@code MPI_Iprobe}) */
    public boolean iprobe(int source, int tag, long comm) {
        try {
            check("MPI_Iprobe(source=" + source + ", tag=" + tag + ")", (int) iprobe.invokeExact(source, tag, comm, outInt, statusesIgnore));
            return outInt.get(JAVA_INT, 0) != 0;
        } catch (Throwable t) {
            throw rethrow("MPI_Iprobe", t);
        }
    }

    /**
     * An array of {@code MPI_Request}s in native memory, for {@link #isendBytes}, {@link #irecvBytes}
     * and {@link #waitall}.
     *
     * @param arena where it lives
     * @param n     how many
     * @return the array
     */
    public MemorySegment requests(Arena arena, int n) {
        return arena.allocate(abi.handleLayout.byteSize() * Math.max(1, n), 8);
    }

    /** @return the size of one request handle in a request array */
    public long requestSize() { return abi.handleLayout.byteSize(); }

    /** {@code MPI_Isend} of {@code count} bytes; the request goes to {@code requests[index]}. */
    public void isendBytes(MemorySegment buf, int count, int dest, int tag, long comm, MemorySegment requests, int index) {
        isendBytes(buf.address(), count, dest, tag, comm, requests.address() + index * requestSize());
    }

    /** {@code MPI_Isend} by address; the request handle is written at {@code request}. Allocates nothing. */
    public void isendBytes(long buf, int count, int dest, int tag, long comm, long request) {
        int rc;
        try {
            rc = (int) SyncPath.ISEND.invokeExact(buf, count, c.byteType(), dest, tag, comm, request);
        } catch (Throwable t) {
            throw rethrow("MPI_Isend", t);
        }
        if (rc != 0) throw failed("MPI_Isend(count=" + count + ", dest=" + dest + ", tag=" + tag + ")", rc);
    }

    /** {@code MPI_Irecv} of up to {@code count} bytes; the request goes to {@code requests[index]}. */
    public void irecvBytes(MemorySegment buf, int count, int source, int tag, long comm, MemorySegment requests, int index) {
        irecvBytes(buf.address(), count, source, tag, comm, requests.address() + index * requestSize());
    }

    /** {@code MPI_Irecv} by address; the request handle is written at {@code request}. Allocates nothing. */
    public void irecvBytes(long buf, int count, int source, int tag, long comm, long request) {
        int rc;
        try {
            rc = (int) SyncPath.IRECV.invokeExact(buf, count, c.byteType(), source, tag, comm, request);
        } catch (Throwable t) {
            throw rethrow("MPI_Irecv", t);
        }
        if (rc != 0) throw failed("MPI_Irecv(count=" + count + ", source=" + source + ", tag=" + tag + ")", rc);
    }

    /** {@code MPI_Waitall} on the first {@code n} requests, statuses ignored. */
    public void waitall(int n, MemorySegment requests) {
        waitall(n, requests.address());
    }

    /** {@code MPI_Waitall} on {@code n} requests at address {@code requests}. Allocates nothing. */
    public void waitall(int n, long requests) {
        if (n == 0) return;
        int rc;
        try {
            rc = (int) SyncPath.WAITALL.invokeExact(n, requests, c.statusesIgnore());
        } catch (Throwable t) {
            throw rethrow("MPI_Waitall", t);
        }
        if (rc != 0) throw failed("MPI_Waitall(n=" + n + ")", rc);
    }

    /** {@code MPI_Issend} by address: completes only once the receiver has matched it. Allocates nothing. */
    public void issendBytes(long buf, int count, int dest, int tag, long comm, long request) {
        int rc;
        try {
            rc = (int) SyncPath.ISSEND.invokeExact(buf, count, c.byteType(), dest, tag, comm, request);
        } catch (Throwable t) {
            throw rethrow("MPI_Issend", t);
        }
        if (rc != 0) throw failed("MPI_Issend(count=" + count + ", dest=" + dest + ", tag=" + tag + ")", rc);
    }

    /** {@code MPI_Ibarrier}; the request handle is written at {@code request}. Allocates nothing. */
    public void ibarrier(long comm, long request) {
        int rc;
        try {
            rc = (int) SyncPath.IBARRIER.invokeExact(comm, request);
        } catch (Throwable t) {
            throw rethrow("MPI_Ibarrier", t);
        }
        if (rc != 0) throw failed("MPI_Ibarrier", rc);
    }

    /** @return whether all {@code n} requests at {@code requests} completed ({@code MPI_Testall}; completed ones are freed) */
    public boolean testall(int n, long requests) {
        if (n == 0) return true;
        int rc;
        try {
            rc = (int) SyncPath.TESTALL.invokeExact(n, requests, outInt.address(), c.statusesIgnore());
        } catch (Throwable t) {
            throw rethrow("MPI_Testall", t);
        }
        if (rc != 0) throw failed("MPI_Testall(n=" + n + ")", rc);
        return outInt.get(JAVA_INT, 0) != 0;
    }

    /**
     * {@code MPI_Iprobe(MPI_ANY_SOURCE, tag)}. Allocates nothing.
     *
     * @return the source of a message with {@code tag} that can be received now, or -1
     */
    public int iprobeAnySource(int tag, long comm) {
        int rc;
        try {
            rc = (int) SyncPath.IPROBE.invokeExact(c.anySource(), tag, comm, outInt.address(), status.address());
        } catch (Throwable t) {
            throw rethrow("MPI_Iprobe", t);
        }
        if (rc != 0) throw failed("MPI_Iprobe(MPI_ANY_SOURCE, tag=" + tag + ")", rc);
        return outInt.get(JAVA_INT, 0) != 0 ? status.get(JAVA_INT, c.statusSourceOffset()) : -1;
    }

    /** {@code MPI_Recv} by address of up to {@code count} bytes, status ignored. Allocates nothing. */
    public void recvBytes(long buf, int count, int source, int tag, long comm) {
        int rc;
        try {
            rc = (int) SyncPath.RECV.invokeExact(buf, count, c.byteType(), source, tag, comm, c.statusesIgnore());
        } catch (Throwable t) {
            throw rethrow("MPI_Recv", t);
        }
        if (rc != 0) throw failed("MPI_Recv(count=" + count + ", source=" + source + ", tag=" + tag + ")", rc);
    }

    // ---- one-sided ----

    /**
     * {@code MPI_Win_create} over a native segment (displacement unit 1), with {@code MPI_ERRORS_RETURN}.
     *
     * @return the window handle
     */
    public long winCreate(MemorySegment base, long comm) {
        try {
            check("MPI_Win_create(size=" + base.byteSize() + ")",
                    (int) winCreate.invokeExact(base, base.byteSize(), 1, c.infoNull(), comm, outHandle));
            long win = abi.read(outHandle);
            check("MPI_Win_set_errhandler(MPI_ERRORS_RETURN)", (int) winSetErrhandler.invokeExact(win, c.errorsReturn()));
            return win;
        } catch (Throwable t) {
            throw rethrow("MPI_Win_create", t);
        }
    }

    /** {@code MPI_Put} of {@code count} bytes to displacement {@code disp} of {@code target}'s window. */
    public void putBytes(MemorySegment origin, int count, int target, long disp, long win) {
        try {
            check("MPI_Put(count=" + count + ", target=" + target + ", disp=" + disp + ")",
                    (int) put.invokeExact(origin.address(), count, c.byteType(), target, disp, count, c.byteType(), win));
        } catch (Throwable t) {
            throw rethrow("MPI_Put", t);
        }
    }

    /** {@code MPI_Win_fence(assert, win)}; {@code assert} from {@link #modeNoPrecede()} etc. */
    public void winFence(int assertion, long win) {
        try {
            check("MPI_Win_fence", (int) winFence.invokeExact(assertion, win));
        } catch (Throwable t) {
            throw rethrow("MPI_Win_fence", t);
        }
    }

    /** {@code MPI_Win_free}. */
    public void winFree(long win) {
        try {
            write(outHandle, win);
            check("MPI_Win_free", (int) winFree.invokeExact(outHandle));
        } catch (Throwable t) {
            throw rethrow("MPI_Win_free", t);
        }
    }

    /** @return {@code MPI_MODE_NOPRECEDE} of this ABI */
    public int modeNoPrecede() { return c.modeNoPrecede(); }
    /** @return {@code MPI_MODE_NOSUCCEED} of this ABI */
    public int modeNoSucceed() { return c.modeNoSucceed(); }

    // ---- dynamic processes (hook over a boot session) ----

    /** @return a port name from {@code MPI_Open_port} */
    public String openPort() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(c.maxPortName() + 1L);
            check("MPI_Open_port", (int) openPort.invokeExact(c.infoNull(), buf));
            return buf.getString(0);
        } catch (Throwable t) {
            throw rethrow("MPI_Open_port", t);
        }
    }

    /** {@code MPI_Close_port}. */
    public void closePort(String port) {
        try (Arena a = Arena.ofConfined()) {
            check("MPI_Close_port", (int) closePort.invokeExact(a.allocateFrom(port)));
        } catch (Throwable t) {
            throw rethrow("MPI_Close_port", t);
        }
    }

    /** @return the intercommunicator of {@code MPI_Comm_accept(port, MPI_INFO_NULL, root, comm)} */
    public long accept(String port, int root, long comm) {
        try (Arena a = Arena.ofConfined()) {
            check("MPI_Comm_accept(" + port + ")", (int) commAccept.invokeExact(a.allocateFrom(port), c.infoNull(), root, comm, outHandle));
            return abi.read(outHandle);
        } catch (Throwable t) {
            throw rethrow("MPI_Comm_accept", t);
        }
    }

    /** @return the intercommunicator of {@code MPI_Comm_connect(port, MPI_INFO_NULL, root, comm)} */
    public long connect(String port, int root, long comm) {
        try (Arena a = Arena.ofConfined()) {
            check("MPI_Comm_connect(" + port + ")", (int) commConnect.invokeExact(a.allocateFrom(port), c.infoNull(), root, comm, outHandle));
            return abi.read(outHandle);
        } catch (Throwable t) {
            throw rethrow("MPI_Comm_connect", t);
        }
    }

    /** @return {@code MPI_Intercomm_merge(inter, high)} */
    public long merge(long inter, boolean high) {
        try {
            check("MPI_Intercomm_merge", (int) intercommMerge.invokeExact(inter, high ? 1 : 0, outHandle));
            return abi.read(outHandle);
        } catch (Throwable t) {
            throw rethrow("MPI_Intercomm_merge", t);
        }
    }

    /** @return a description: ABI, library file */
    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        parts.add(abi.label);
        parts.add(library.name);
        return String.join(" ", parts);
    }
}
