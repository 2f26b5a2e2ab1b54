package org.lpf4j.coll;

import org.lpf4j.Machine;
import org.lpf4j.MachineLevels;

/**
 * The groups of the two-level tree of {@code p} members, each a run of consecutive ranks whose
 * first rank leads it, in one of two kinds:
 * <ul>
 * <li><b>nodes</b> ({@link #of}): when the machine reports its node structure
 *     ({@link Machine#levels()}) and the members are all its processes, the groups are the nodes,
 *     by real rank; the root's group is led by the root itself, so the upper level of the tree
 *     crosses nodes and the lower level stays inside them;</li>
 * <li><b>√p</b> ({@link #Groups(int)}): otherwise {@code count} ≈ √p groups whose sizes differ by
 *     at most one, over <em>virtual</em> ranks {@code (rank − root) mod p}, so the root is
 *     virtual rank 0, the leader of group 0.</li>
 * </ul>
 * The tree algorithms work in virtual ranks ({@link #virtual}, {@link #rank}); for node groups a
 * virtual rank is the rank. Immutable; built once per collectives object (O(p)), every method
 * O(1).
 */
final class Groups {
    final int count;
    /** Whether the groups are the machine's nodes (no rotation by the root). */
    final boolean nodes;
    private final int p;
    /** first[g]: the first (virtual) rank of group g; first[count] = p. */
    private final int[] first;
    /** groupOf[v]: the group of (virtual) rank v. */
    private final int[] groupOf;
    private final int maxSize;

    /** ≈ √p groups of consecutive virtual ranks, sizes differing by at most one. */
    Groups(int p) {
        this(p, sqrtSizes(p), false);
    }

    private Groups(int p, int[] sizes, boolean nodes) {
        this.p = p;
        this.nodes = nodes;
        this.count = sizes.length;
        this.first = new int[count + 1];
        this.groupOf = new int[p];
        int largest = 0;
        for (int g = 0; g < count; g++) {
            first[g + 1] = first[g] + sizes[g];
            for (int v = first[g]; v < first[g + 1]; v++) groupOf[v] = g;
            largest = Math.max(largest, sizes[g]);
        }
        this.maxSize = largest;
    }

    private static int[] sqrtSizes(int p) {
        int c = (int) Math.ceil(Math.sqrt(p));
        int count = Math.max(1, (p + c - 1) / c), small = p / count, big = p % count;
        int[] sizes = new int[count];
        for (int g = 0; g < count; g++) sizes[g] = g < big ? small + 1 : small;
        return sizes;
    }

    /**
     * @param p       members
     * @param machine the probed machine, or null
     * @return the machine's nodes when it reports levels for exactly p processes (the members
     *         are then all its processes), else the ≈ √p groups
     */
    static Groups of(int p, Machine machine) {
        if (machine != null && machine.levels().isPresent() && machine.levels().get().p() == p) {
            MachineLevels lv = machine.levels().get();
            int[] sizes = new int[lv.nodes()];
            for (int k = 0; k < sizes.length; k++) sizes[k] = lv.nodeSize(k);
            return new Groups(p, sizes, true);
        }
        return new Groups(p);
    }

    /** @return the virtual rank of {@code rank} when {@code root} is the root */
    int virtual(int rank, int root) { return nodes ? rank : Math.floorMod(rank - root, p); }

    /** @return the rank of virtual rank {@code v} when {@code root} is the root */
    int rank(int v, int root) { return nodes ? v : (v + root) % p; }

    /** @return the leader of the group of virtual rank {@code v}: the root in the root's group, else the group's first */
    int leader(int v, int rootV) {
        int g = groupOf[v];
        return g == groupOf[rootV] ? rootV : first[g];
    }

    /** @return the group of virtual rank {@code v} */
    int of(int v) { return groupOf[v]; }

    /** @return the first virtual rank of group {@code g} */
    int start(int g) { return first[g]; }

    /** @return the number of members of group {@code g} */
    int size(int g) { return first[g + 1] - first[g]; }

    /** @return the largest group size */
    int maxSize() { return maxSize; }

    /** @return the smallest group size */
    int minSize() {
        int m = Integer.MAX_VALUE;
        for (int g = 0; g < count; g++) m = Math.min(m, size(g));
        return m;
    }

    /** @return the largest {@code size(g) · (p − size(g))}: the bytes (in units) the busiest group exchanges with the others in an all-to-all */
    long maxCrossing() {
        long m = 0;
        for (int g = 0; g < count; g++) m = Math.max(m, (long) size(g) * (p - size(g)));
        return m;
    }
}
