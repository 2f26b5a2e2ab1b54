package org.lpf4j.debug;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A non-empty area of one process's memory that a request of the superstep writes or reads, and
 * the sweep that finds a written area overlapping a read one.
 *
 * @param request the request
 * @param writes  whether it writes the area (else it reads it)
 * @param memory  the area
 */
record Area(Request request, boolean writes, MemorySegment memory) {
    /** Stands for "off-heap" among the heap arrays areas may live in. */
    private static final Object NATIVE = new Object();
    private static final Comparator<Area> BY_START = Comparator.comparingLong(a -> a.memory.address());

    private long start() { return memory.address(); }

    private long end() { return memory.address() + memory.byteSize(); }

    /**
     * Finds a written area that overlaps a read area of another request. Areas are grouped by
     * the memory they live in (off-heap, or one heap array each), sorted by start address and
     * swept once, remembering per kind the two areas reaching furthest: O(n log n).
     *
     * @param areas non-empty areas
     * @return {writer, reader} of one overlap, or {@code null} if there is none
     */
    static Area[] findConflict(List<Area> areas) {
        Map<Object, List<Area>> byMemory = new IdentityHashMap<>();
        for (Area a : areas) {
            byMemory.computeIfAbsent(a.memory.heapBase().orElse(NATIVE), k -> new ArrayList<>()).add(a);
        }
        for (List<Area> group : byMemory.values()) {
            group.sort(BY_START);
            Area[] writers = new Area[2], readers = new Area[2]; // the two reaching furthest, furthest first
            for (Area a : group) {
                Area other = overlapping(a.writes ? readers : writers, a);
                if (other != null) return a.writes ? new Area[]{a, other} : new Area[]{other, a};
                keepFurthest(a.writes ? writers : readers, a);
            }
        }
        return null;
    }

    /**
     * An earlier-starting area of the other kind that overlaps {@code a}, of another request (a
     * request writing and reading the same memory is not a conflict between requests).
     */
    private static Area overlapping(Area[] furthest, Area a) {
        for (Area f : furthest) {
            if (f == null || f.end() <= a.start()) return null;
            if (f.request != a.request) return f;
        }
        return null;
    }

    private static void keepFurthest(Area[] furthest, Area a) {
        if (furthest[0] == null || a.end() > furthest[0].end()) {
            furthest[1] = furthest[0];
            furthest[0] = a;
        } else if (furthest[1] == null || a.end() > furthest[1].end()) {
            furthest[1] = a;
        }
    }
}
