package org.lpf4j.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lines a net job's ranks print with {@code -Dlpf.engine.net.showPaths=true} as their meshes
 * close, read back by a test that started the job in other JVMs:
 * <pre>
 * lpf4j net: rank 1 of 4: connections by path: in-JVM 0, shared memory 2, TCP 2; peers by path: in-JVM [], shared memory [0], TCP [2, 3]
 * </pre>
 * Paths by index: 0 in-JVM memory, 1 a shared-memory file, 2 TCP (as {@code WireCounts}).
 */
public final class MeshPaths {
    private MeshPaths() {}

    /** The JVM option that makes every rank print its line. */
    public static final String OPTION = "-Dlpf.engine.net.showPaths=true";
    /** Path indices, as {@code WireCounts}'s. */
    public static final int IN_JVM = 0, SHARED_MEMORY = 1, TCP = 2;

    private static final Pattern LINE = Pattern.compile("lpf4j net: rank (\\d+) of (\\d+): connections by path: in-JVM (\\d+),"
            + " shared memory (\\d+), TCP (\\d+); peers by path: in-JVM \\[([\\d, ]*)], shared memory \\[([\\d, ]*)], TCP \\[([\\d, ]*)]");

    /**
     * One rank's line.
     *
     * @param connections its open connections by path
     * @param peers       the ranks whose main connection took each path
     * @param text        the line as printed
     */
    public record Ranks(int rank, int size, int[] connections, List<List<Integer>> peers, String text) {}

    /** @return the lines of {@code out} for a job of {@code size} ranks, by rank (the last one of a rank if it printed several) */
    public static Map<Integer, Ranks> read(String out, int size) {
        Map<Integer, Ranks> lines = new TreeMap<>();
        for (Matcher m = LINE.matcher(out); m.find(); ) {
            if (Integer.parseInt(m.group(2)) != size) continue;
            int rank = Integer.parseInt(m.group(1));
            int[] counts = {Integer.parseInt(m.group(3)), Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5))};
            lines.put(rank, new Ranks(rank, size, counts, List.of(ranks(m.group(6)), ranks(m.group(7)), ranks(m.group(8))), m.group()));
        }
        return lines;
    }

    /**
     * The peers a rank should reach by each path when rank q runs in JVM {@code q / perJvm} on host
     * {@code q / perHost} (both in ranks; {@code perHost} a multiple of {@code perJvm}).
     *
     * @return the other ranks of {@code rank}'s JVM, of its host's other JVMs, and of the other
     *         hosts, ascending: the order of {@link Ranks#peers}
     */
    public static List<List<Integer>> byPlacement(int rank, int size, int perJvm, int perHost) {
        List<Integer> jvm = new ArrayList<>(), host = new ArrayList<>(), other = new ArrayList<>();
        for (int q = 0; q < size; q++) {
            if (q == rank) continue;
            if (q / perJvm == rank / perJvm) jvm.add(q);
            else if (q / perHost == rank / perHost) host.add(q);
            else other.add(q);
        }
        return List.of(jvm, host, other);
    }

    private static List<Integer> ranks(String list) {
        List<Integer> r = new ArrayList<>();
        for (String s : list.split(",")) if (!s.isBlank()) r.add(Integer.parseInt(s.strip()));
        return r;
    }
}
