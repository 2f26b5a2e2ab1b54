package org.lpf4j.engine.mpi;

import java.util.LinkedHashMap;
import java.util.SequencedMap;

/**
 * What {@code lpf info} shows about the MPI engine ({@link MpiEngineProvider#details()}): the
 * library file found, its flavour, its version string and the thread level granted. Never
 * initialises MPI: the library is opened ({@code dlopen}) and asked {@code MPI_Get_library_version},
 * which MPI allows before {@code MPI_Init} and after {@code MPI_Finalize} (MPI-3.1 §8.1.1; Open MPI
 * 4.1's man page: "one of the few functions that can be called before MPI_Init and after
 * MPI_Finalize"); the thread level is known only if MPI is already initialised in this JVM.
 * Cost: one {@code dlopen} per JVM and a few calls.
 */
final class MpiDetails {
    private MpiDetails() {}

    /** Thread level names by value ({@code MPI_THREAD_SINGLE} .. {@code MPI_THREAD_MULTIPLE}, the same in both ABIs). */
    private static final String[] LEVELS = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};

    /**
     * @param configured the {@code lpf.engine.mpi.library} setting (empty: the usual sonames)
     * @return label to value: {@code library}, {@code flavour}, {@code version}, {@code thread level}
     */
    static SequencedMap<String, String> of(String configured) {
        SequencedMap<String, String> d = new LinkedHashMap<>();
        String file = MpiLibrary.locate(configured);
        if (file == null) {
            d.put("library", "not found (looked for " + (configured == null || configured.isBlank()
                    ? String.join(", ", MpiLibrary.SONAMES) : configured) + ")");
            return d;
        }
        d.put("library", file);
        Mpi mpi;
        try {
            mpi = Mpi.load(configured);
        } catch (RuntimeException e) {
            d.put("flavour", flavourFromName(file) + " (by file name; the library did not load: " + e.getMessage() + ")");
            return d;
        }
        if (!mpi.libraryName().equals(configured) && !file.endsWith(mpi.libraryName())) {
            d.put("library", file + " (this JVM had loaded " + mpi.libraryName() + " already; shown below)");
        }
        d.put("flavour", mpi.abiName());
        try {
            d.put("version", mpi.libraryVersion().lines().findFirst().orElse("").strip().replaceAll("\\s+", " "));
        } catch (RuntimeException e) {
            d.put("version", "unavailable: " + e.getMessage());
        }
        d.put("thread level", threadLevel(mpi));
        return d;
    }

    private static String threadLevel(Mpi mpi) {
        try {
            if (!mpi.initialized()) return "not initialised";
            if (mpi.finalized()) return "finalized";
            return level(mpi.queryThread()) + " (granted)";
        } catch (RuntimeException e) {
            return "unavailable: " + e.getMessage();
        }
    }

    /** @return the name of an MPI thread level, or its number if unknown */
    static String level(int level) {
        return level >= 0 && level < LEVELS.length ? LEVELS[level] : "level " + level;
    }

    /** @return the flavour a library file name suggests ({@link MpiAbi#byFileName}), or "unknown" */
    static String flavourFromName(String file) {
        MpiAbi abi = MpiAbi.byFileName(file);
        return abi == null ? "unknown" : abi.label;
    }
}
