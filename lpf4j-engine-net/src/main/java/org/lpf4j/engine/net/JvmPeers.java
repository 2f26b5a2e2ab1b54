package org.lpf4j.engine.net;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ranks of each job whose meshes run in this JVM with rings in its memory on
 * ({@link NetParameters#SHM_IN_JVM}): ranks of {@code lpf.engine.net.perJvm}, tasks of one Spark
 * executor, threads of a test. A dialler that finds its peer here knows, before the locality
 * exchange, that the rings will be in this JVM's memory, and makes no shared-memory file for the
 * connection ({@link LocalPeers}). It is a prediction, not the proof: the exchange still checks
 * the JVM's token, and a peer found here but not in this JVM (never, short of a stale entry) gets
 * TCP. A job is named by its shared-memory directory (from the job's secret), so no two jobs mix.
 *
 * <p>Cost: one concurrent-set operation per mesh made or closed and per connection dialled.
 * Thread-safe.
 */
final class JvmPeers {
    private JvmPeers() {}

    private static final Set<String> RANKS = ConcurrentHashMap.newKeySet();

    private static String key(Path jobDir, int rank) { return jobDir.getFileName() + "/" + rank; }

    /** Notes that rank {@code rank} of the job of {@code jobDir} has its mesh in this JVM. */
    static void add(Path jobDir, int rank) { RANKS.add(key(jobDir, rank)); }

    /** Forgets it: its mesh is closed. */
    static void remove(Path jobDir, int rank) { RANKS.remove(key(jobDir, rank)); }

    /** @return whether rank {@code rank} of the job of {@code jobDir} has its mesh in this JVM */
    static boolean has(Path jobDir, int rank) { return RANKS.contains(key(jobDir, rank)); }
}
