package org.lpf4j.boot.pmix;

import org.lpf4j.spi.BootModule;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.Parameters;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;
import org.lpf4j.spi.boot.BootSession;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Boot module {@code pmix}: the JVM was started by a PMIx-enabled launcher (Open MPI's
 * {@code mpirun}, {@code prterun}, {@code srun --mpi=pmix}), which sets {@code PMIX_NAMESPACE},
 * {@code PMIX_RANK} and the server's URI; lpf4j calls that launcher's PMIx client library
 * ({@code libpmix.so.2}, Debian package libpmix2) through java.lang.foreign. Priority 60 (above
 * {@code env}); declined with the reason when the variables or the library are missing. Needs
 * {@code --enable-native-access} for lpf4j's boot module (or ALL-UNNAMED on the class path).
 */
public final class PmixBoot implements BootModule {
    private static final Version VERSION = new Version(0, 1, 0);
    private static final Version API = new Version(1, 0, 0);
    private static final List<String> DIRECTORIES = List.of("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
            "/usr/lib64", "/usr/lib", "/usr/local/lib", "/usr/local/lib64", "/opt/pmix/lib");

    private final UnaryOperator<String> environment;
    private Parameters.Parameter<String> library;

    /** For {@link java.util.ServiceLoader}: reads the real environment. */
    public PmixBoot() { this(System::getenv); }

    /** @param environment the variable lookup (tests pass a map's {@code get}) */
    public PmixBoot(UnaryOperator<String> environment) { this.environment = environment; }

    @Override public String name() { return "pmix"; }

    @Override public Version frameworkApiVersion() { return API; }

    @Override public Version version() { return VERSION; }

    @Override
    public void open(ModuleParameters p) {
        library = p.string("library", "libpmix.so.2", "the PMIx client library: a file name the dynamic linker finds, or a path");
    }

    @Override
    public Query query() {
        if (environment.apply("PMIX_NAMESPACE") == null || environment.apply("PMIX_RANK") == null) {
            return Query.decline("not started by a PMIx launcher (PMIX_NAMESPACE and PMIX_RANK are not set; use mpirun, prterun or srun --mpi=pmix)");
        }
        String lib = libraryName();
        if (find(lib) == null) {
            return Query.decline(lib + " not found (lpf.boot.pmix.library; searched LD_LIBRARY_PATH and " + DIRECTORIES
                    + "; install libpmix2)");
        }
        return Query.run(60);
    }

    private String libraryName() { return library == null ? "libpmix.so.2" : library.get().trim(); }

    /** @return the library file, or {@code null} if none is found */
    private Path find(String lib) {
        if (lib.contains("/")) return Files.isRegularFile(Path.of(lib)) ? Path.of(lib) : null;
        List<String> dirs = new ArrayList<>();
        String ld = environment.apply("LD_LIBRARY_PATH");
        if (ld != null) for (String d : ld.split(":")) if (!d.isEmpty()) dirs.add(d);
        dirs.addAll(DIRECTORIES);
        for (String d : dirs) {
            Path p = Path.of(d, lib);
            if (Files.exists(p)) return p;
        }
        return null;
    }

    @Override
    public Membership membership() {
        int[] m = PmixSession.membership(libraryName());
        return new Membership(m[0], m[1], "PMIx (PMIx_Init, pmix.job.size)");
    }

    @Override
    public BootSession openSession() { return PmixSession.open(libraryName()); }
}
