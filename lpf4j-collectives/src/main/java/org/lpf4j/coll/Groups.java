package org.lpf4j.coll;

/**
 * The two-level tree of {@code p} members: {@code count} ≈ √p groups of consecutive virtual
 * ranks whose sizes differ by at most one; the first member of each group is its leader.
 * Immutable; every method is O(1).
 */
final class Groups {
    final int count;
    private final int small;
    private final int bigGroups;

    Groups(int p) {
        int c = (int) Math.ceil(Math.sqrt(p));
        count = Math.max(1, (p + c - 1) / c);
        small = p / count;
        bigGroups = p % count;
    }

    /** @return the group of virtual rank {@code v} */
    int of(int v) {
        int boundary = bigGroups * (small + 1);
        return v < boundary ? v / (small + 1) : bigGroups + (v - boundary) / small;
    }

    /** @return the first virtual rank (the leader) of group {@code g} */
    int start(int g) { return g * small + Math.min(g, bigGroups); }

    /** @return the number of members of group {@code g} */
    int size(int g) { return g < bigGroups ? small + 1 : small; }

    /** @return the largest group size */
    int maxSize() { return bigGroups > 0 ? small + 1 : small; }
}
