package org.lpf4j.superstep.shm;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Where a job's shared-memory files live: one directory per job under a base directory
 * ({@code /dev/shm} by default), named from the job's secret (the hex of a SHA-256 of it, so that
 * another user can neither guess nor pre-create it), created {@code 0700}, its files {@code 0600}
 * from their creation on. An existing directory of the name is used only if it is a directory of
 * this user with mode {@code 0700} (not a link).
 *
 * <p>The engines keep files here only while two processes set up a ring (the file is removed as
 * soon as both have mapped it, the mappings living on), so a job leaves nothing behind once set
 * up, even when it is killed; what a set-up interrupted by a kill left is removed by the launcher
 * ({@link #removeTree}) or replaced by the next start of the same job (same secret, same names).
 * Costs a SHA-256 and a few file system calls; not used on any hot path.
 */
public final class ShmDirectory {
    private ShmDirectory() {}

    /** {@code rwx------} */
    public static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    /** {@code rw-------} */
    public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    /** The prefix of every job directory's name. */
    public static final String PREFIX = "lpf4j-";

    /** @return the directory of the job with {@code secret} under {@code base}: {@code base/lpf4j-<32 hex digits of SHA-256("lpf4j-shm" ‖ secret)>} */
    public static Path of(Path base, byte[] secret) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update("lpf4j-shm".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            d.update(secret);
            return base.resolve(PREFIX + HexFormat.of().formatHex(d.digest(), 0, 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /**
     * Creates {@code dir} with mode 0700 unless it exists; an existing one must be this user's
     * directory with mode 0700.
     *
     * @throws NoSuchFileException if another process removed the directory while it was checked (try again)
     * @throws IOException if it cannot be created, or exists and is not safe to use
     */
    public static void ensure(Path dir) throws IOException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIRECTORY));
            Files.setPosixFilePermissions(dir, DIRECTORY); // the umask may have removed bits, never added
            return;
        } catch (FileAlreadyExistsException e) {
            // checked below
        }
        // One look at the entry itself (not what a link points to); gone by now: NoSuchFileException.
        PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isDirectory()) throw new IOException(dir + " exists and is not a directory");
        int owner = uid(dir), me = myUid();
        if (owner != me) throw new IOException(dir + " belongs to " + a.owner().getName() + " (uid " + owner + "), not to uid " + me);
        if (!a.permissions().equals(DIRECTORY)) {
            throw new IOException(dir + " has mode " + PosixFilePermissions.toString(a.permissions()) + ", not rwx------");
        }
    }

    /**
     * @return the numeric owner of {@code path} itself (not what a link points to)
     * @throws IOException if it cannot be read
     */
    public static int uid(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * @return this process's effective user id, the one its files get (by number: a user with no
     *         name, as in containers that run an arbitrary uid, is still this user), from the
     *         {@code Uid:} line of {@code /proc/self/status} (real, effective, saved, file system).
     *         Not the owner of {@code /proc/self}: that link is root's whoever reads it.
     * @throws IOException if {@code /proc} cannot tell
     */
    public static int myUid() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                String[] ids = line.substring(4).strip().split("\\s+");
                if (ids.length >= 2) return Integer.parseInt(ids[1]);
            }
        }
        throw new IOException("/proc/self/status has no Uid line");
    }

    /**
     * Creates {@code name} in {@code dir} (made by {@link #ensure} if need be) with mode 0600,
     * replacing a file of that name a killed start of the same job left.
     *
     * @return the new file's path
     */
    public static Path createFile(Path dir, String name) throws IOException {
        Path f = dir.resolve(name);
        for (int attempt = 0; ; attempt++) {
            try {
                ensure(dir);
                Files.deleteIfExists(f);
                return Files.createFile(f, PosixFilePermissions.asFileAttribute(FILE));
            } catch (NoSuchFileException e) {
                // another process of the job removed the (empty) directory meanwhile: again (each
                // retry follows another process's removal, of which there are only so many)
                if (attempt == 100) throw e;
            }
        }
    }

    /** Removes {@code dir} if it is empty (another process of the job may still use it: then it stays). */
    public static void removeIfEmpty(Path dir) {
        try {
            Files.deleteIfExists(dir);
        } catch (DirectoryNotEmptyException e) {
            // a process of the job still sets up a ring here: the last one removes it
        } catch (IOException e) {
            // nothing the job can do: the launcher removes what is left
        }
    }

    /**
     * Removes the job directories under {@code base} that a killed process left: those named as
     * {@link #of} names them, this user's, in which nothing (the directory, a file in it) changed
     * for {@code idle}. A live job's directory holds files only while connections are set up, each
     * within the set-up time, so {@code idle} well above that spares every live one; a live
     * process that finds its directory gone makes it again ({@link #createFile}). Errors are
     * ignored: a leftover costs a name under {@code base}, not a job.
     *
     * <p>Cost: a listing of {@code base}, and of each directory that looks like a job's.
     *
     * @return how many directories it removed
     */
    public static int removeStale(Path base, Duration idle) {
        int removed = 0;
        long before = System.currentTimeMillis() - idle.toMillis();
        try (var dirs = Files.newDirectoryStream(base, PREFIX + "*")) {
            int me = myUid();
            for (Path d : dirs) {
                try {
                    if (!d.getFileName().toString().matches(JOB_DIRECTORY) || uid(d) != me || changedSince(d, before)) continue;
                    removeTree(d);
                    removed++;
                } catch (IOException | RuntimeException e) {
                    // gone meanwhile, or not ours to judge
                }
            }
        } catch (IOException | RuntimeException e) {
            // nothing to sweep
        }
        return removed;
    }

    /** The name {@link #of} gives a job's directory. */
    private static final String JOB_DIRECTORY = java.util.regex.Pattern.quote(PREFIX) + "[0-9a-f]{32}";

    /** @return whether {@code dir} or an entry in it changed after {@code millis} (epoch) */
    private static boolean changedSince(Path dir, long millis) throws IOException {
        if (Files.getLastModifiedTime(dir, LinkOption.NOFOLLOW_LINKS).toMillis() > millis) return true;
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.toList()) {
                if (Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis() > millis) return true;
            }
        }
        return false;
    }

    /** Removes {@code dir} and everything under it, if it exists (a launcher after its job's JVMs are gone). */
    public static void removeTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) return;
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
