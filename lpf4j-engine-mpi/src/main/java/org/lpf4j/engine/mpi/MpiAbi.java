package org.lpf4j.engine.mpi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;

/**
 * The two MPI ABIs this engine speaks, and the handle values of the one found: the only place that
 * knows how an implementation spells {@code MPI_Comm}, {@code MPI_BYTE} or {@code MPI_STATUS_IGNORE}.
 * Every other class sees handles as Java {@code long}s.
 *
 * <ul>
 *   <li><b>Open MPI</b> (libmpi.so.40): a handle is a pointer; a predefined handle is the address of an
 *       exported global ({@code #define MPI_COMM_WORLD OMPI_PREDEFINED_GLOBAL(MPI_Comm,
 *       ompi_mpi_comm_world)}, Open MPI 4.1 {@code mpi.h}). {@code MPI_STATUS_IGNORE} is {@code 0};
 *       {@code MPI_MODE_NOPRECEDE} is 2.</li>
 *   <li><b>MPICH</b> (libmpich.so.12, and its ABI family): a handle is an {@code int}; predefined handles
 *       are constants of MPICH's {@code mpi.h} (MPICH 4.0.2, {@code /usr/include/x86_64-linux-gnu/mpich/mpi.h}:
 *       {@code MPI_COMM_WORLD ((MPI_Comm)0x44000000)}, {@code MPI_COMM_SELF ((MPI_Comm)0x44000001)}, {@code MPI_BYTE ((MPI_Datatype)0x4c00010d)},
 *       {@code MPI_ERRORS_RETURN ((MPI_Errhandler)0x54000001)}, {@code MPI_INFO_NULL ((MPI_Info)0x1c000000)},
 *       {@code MPI_SUM (MPI_Op)(0x58000003)}, {@code MPI_STATUS_IGNORE (MPI_Status *)1},
 *       {@code MPI_MODE_NOPRECEDE 8192}, {@code MPI_ANY_SOURCE (-2)}, {@code MPI_Status} with
 *       {@code MPI_SOURCE} at byte 8 of 20; Open MPI 4.1: {@code MPI_ANY_SOURCE -1}, {@code MPI_SOURCE} at byte 0 of 24).</li>
 * </ul>
 *
 * <p>Cost: resolved once per library load; the values are plain fields.
 */
enum MpiAbi {
    /** Open MPI: pointer handles, predefined handles are exported globals. */
    OPEN_MPI("Open MPI", ValueLayout.JAVA_LONG),
    /** MPICH and its ABI family: {@code int} handles, predefined handles are constants. */
    MPICH("MPICH", ValueLayout.JAVA_INT);

    /** A readable name. */
    final String label;
    /**
     * How a handle travels through a C call and sits in memory (an {@code MPI_Comm*} out-parameter).
     * Open MPI's pointer handles are passed as 64-bit integers: on the LP64 ABIs (x86-64 System V,
     * AArch64) a pointer argument and a {@code long} argument travel the same way, and no
     * {@code MemorySegment} has to be made per call.
     */
    final ValueLayout handleLayout;

    MpiAbi(String label, ValueLayout handleLayout) {
        this.label = label;
        this.handleLayout = handleLayout;
    }

    /**
     * @param lookup the loaded library's symbols
     * @return the ABI the library speaks, or {@code null} if neither
     */
    static MpiAbi detect(SymbolLookup lookup) {
        if (lookup.find("ompi_mpi_comm_world").isPresent()) return OPEN_MPI;
        if (lookup.find("MPII_Version_ABI").isPresent() || lookup.find("MPIR_Err_create_code").isPresent()) return MPICH;
        return null;
    }

    /**
     * The ABI a library file's name suggests, without loading it: MPICH's libraries are called
     * {@code libmpich*}, Open MPI's {@code libmpi.so*}. A link is followed first (MPICH installs
     * {@code libmpi.so.12} as a link to {@code libmpich.so.12}).
     *
     * @param file a path or a bare file name
     * @return the ABI, or {@code null} if the name does not tell
     */
    static MpiAbi byFileName(String file) {
        String name = file;
        try {
            java.nio.file.Path p = java.nio.file.Path.of(file);
            if (java.nio.file.Files.exists(p)) name = p.toRealPath().toString();
        } catch (java.io.IOException | java.nio.file.InvalidPathException e) {
            // keep the name as given
        }
        name = name.substring(name.lastIndexOf('/') + 1);
        if (name.startsWith("libmpich")) return MPICH;
        if (name.startsWith("libmpi.so")) return OPEN_MPI;
        return null;
    }

    /**
     * @param lookup the loaded library's symbols
     * @return the predefined handles and constants of this ABI
     */
    Constants constants(SymbolLookup lookup) {
        return switch (this) {
            case OPEN_MPI -> new Constants(
                    global(lookup, "ompi_mpi_comm_world"), global(lookup, "ompi_mpi_comm_self"), global(lookup, "ompi_mpi_comm_null"),
                    global(lookup, "ompi_mpi_byte"), global(lookup, "ompi_mpi_long"),
                    global(lookup, "ompi_mpi_op_sum"), global(lookup, "ompi_mpi_op_bor"), global(lookup, "ompi_mpi_op_max"),
                    global(lookup, "ompi_mpi_errors_return"), global(lookup, "ompi_mpi_info_null"),
                    global(lookup, "ompi_request_null"),
                    0L, 2, 16, 8, 4, 256, 256, 1024,
                    -1, 0, 24); // MPI_ANY_SOURCE; struct ompi_status_public_t { int MPI_SOURCE; int MPI_TAG; int MPI_ERROR; int _cancelled; size_t _ucount; }
            case MPICH -> new Constants(
                    0x44000000L, 0x44000001L, 0x04000000L, 0x4c00010dL, 0x4c000807L,
                    0x58000003L, 0x58000008L, 0x58000001L,
                    0x54000001L, 0x1c000000L, 0x2c000000L,
                    1L, 8192, 16384, 2048, 4096, 8192, 512, 256,
                    -2, 8, 20); // MPI_ANY_SOURCE; struct MPI_Status { int count_lo; int count_hi_and_cancelled; int MPI_SOURCE; int MPI_TAG; int MPI_ERROR; }
        };
    }

    private static long global(SymbolLookup lookup, String name) {
        return lookup.find(name).orElseThrow(() -> new IllegalStateException(
                "libmpi looks like Open MPI but does not export " + name)).address();
    }

    /**
     * Converts a handle read from or written to memory.
     *
     * @param seg    memory holding one handle
     * @return the handle as a long
     */
    long read(MemorySegment seg) {
        return this == OPEN_MPI ? seg.get(ValueLayout.JAVA_LONG, 0) : seg.get(ValueLayout.JAVA_INT, 0);
    }

    /** The predefined handles and constants (handles as longs). */
    record Constants(long commWorld, long commSelf, long commNull, long byteType, long longType,
                     long opSum, long opBor, long opMax, long errorsReturn, long infoNull, long requestNull,
                     long statusesIgnore, int modeNoPrecede, int modeNoSucceed, int modeNoStore, int modeNoPut,
                     int maxLibraryVersionString, int maxErrorString, int maxPortName, int anySource,
                     int statusSourceOffset, int statusBytes) {}
}
