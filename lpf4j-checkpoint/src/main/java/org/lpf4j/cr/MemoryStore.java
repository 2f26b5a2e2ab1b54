package org.lpf4j.cr;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/** The {@code memory} module's store: one process's view of a {@link Shelf} shared by the job's processes. */
final class MemoryStore implements CheckpointStore {
    private final Shelf shelf;
    private final CheckpointModule.Job job;

    MemoryStore(Shelf shelf, CheckpointModule.Job job) {
        this.shelf = shelf;
        this.job = job;
    }

    /** The checkpoints of one job in this JVM: parts by seq and pid, and the commit marks. */
    static final class Shelf {
        private final Map<Long, MemorySegment[]> parts = new ConcurrentHashMap<>();
        private final ConcurrentSkipListMap<Long, String> committed = new ConcurrentSkipListMap<>();
        /** The progress of the one run whose retries share this shelf ({@link Restarts}): the iteration that comes next. */
        private volatile long reached = -1;

        private MemorySegment[] of(long seq, int nprocs) { return parts.computeIfAbsent(seq, s -> new MemorySegment[nprocs]); }
    }

    @Override public String where() { return "memory of this JVM"; }

    @Override
    public void write(long seq, MemorySegment part) {
        MemorySegment copy = Arena.ofAuto().allocate(part.byteSize(), 8);
        MemorySegment.copy(part, 0, copy, 0, part.byteSize());
        MemorySegment[] slots = shelf.of(seq, job.nprocs());
        synchronized (slots) {
            slots[job.pid()] = copy;
        }
    }

    @Override
    public MemorySegment read(long seq) throws IOException {
        MemorySegment[] slots = shelf.parts.get(seq);
        MemorySegment part = null;
        if (slots != null && job.pid() < slots.length) {
            synchronized (slots) {
                part = slots[job.pid()];
            }
        }
        if (part == null) throw new NoSuchFileException("part of pid " + job.pid() + " of checkpoint " + seq + " in memory");
        return part;
    }

    @Override
    public void progress(String run, long iteration) { shelf.reached = iteration; }

    @Override
    public long reached(String run) { return shelf.reached; }

    @Override
    public void commit(long seq, String description) { shelf.committed.put(seq, description); }

    @Override
    public List<Long> committed() { return new ArrayList<>(shelf.committed.descendingKeySet()); }

    @Override
    public String description(long seq) { return shelf.committed.get(seq); }

    @Override
    public List<Long> incomplete() {
        List<Long> seqs = new ArrayList<>();
        for (long s : shelf.parts.keySet()) if (!shelf.committed.containsKey(s)) seqs.add(s);
        seqs.sort(java.util.Comparator.reverseOrder());
        return seqs;
    }

    @Override
    public long nextSeq() {
        long max = 0;
        for (long s : shelf.parts.keySet()) max = Math.max(max, s);
        return max + 1;
    }

    @Override
    public void prune(int keep) {
        List<Long> c = committed();
        long newest = c.isEmpty() ? Long.MAX_VALUE : c.get(0);
        for (int i = keep; i < c.size(); i++) {
            shelf.committed.remove(c.get(i));
            shelf.parts.remove(c.get(i));
        }
        for (long s : incomplete()) if (s < newest) shelf.parts.remove(s);
    }
}
