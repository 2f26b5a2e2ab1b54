package org.lpf4j.coll;

/**
 * The processes taking part in a {@link Collectives} object: pids {@code lo, lo+stride, …} below
 * {@code hi}, numbered by rank {@code 0 … count-1}. Immutable; every method is O(1).
 */
final class Members {
    final int lo;
    final int hi;
    final int stride;
    /** Number of members. */
    final int count;
    /** This process's rank, or -1 when it is not a member. */
    final int rank;
    /** Whether the members are all processes of the context (internal syncs are then allowed). */
    final boolean everyone;

    Members(int nprocs, int pid, int lo, int hi, int stride) {
        this.lo = lo;
        this.hi = hi;
        this.stride = stride;
        this.count = hi <= lo ? 0 : 1 + (hi - lo - 1) / stride; // no overflow for any stride ≥ 1
        this.rank = rankOf(pid);
        this.everyone = count == nprocs;
    }

    /** @return the pid of member {@code rank} */
    int pid(int rank) { return lo + rank * stride; }

    /** @return the rank of {@code pid}, or -1 when it is not a member */
    int rankOf(int pid) {
        if (pid < lo || pid >= hi || (pid - lo) % stride != 0) return -1;
        return (pid - lo) / stride;
    }

    @Override
    public String toString() {
        return "pids " + lo + ".." + (hi - 1) + " stride " + stride + " (" + count + " members)";
    }
}
