package org.lpf4j.cr;

import org.lpf4j.Capacity;
import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.spi.Component;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Coordinated checkpoints of a BSP program: what the program declares survives the loss of a
 * process. A sync is a consistent cut (no message is in flight once it returns), so a checkpoint
 * taken collectively at a superstep boundary is a consistent state of the whole job.
 *
 * <pre>{@code
 * try (Checkpoints cr = Checkpoints.init(ctx, "heat " + n)) {
 *     cr.protect("grid", grid);                       // a MemorySegment, registered or not
 *     cr.resume();                                    // a restart: grid and the iteration are restored
 *     for (long t = cr.iteration(); t < steps; t = cr.checkpoint()) {
 *         ... puts ...; ctx.sync(); ... compute step t ...
 *     }                                               // checkpoint(): ends step t, takes one if due
 * }
 * }</pre>
 *
 * <p><b>The iteration.</b> This object counts the program's iterations itself: {@link #iteration}
 * is the one that comes next (0 in a run that starts from the beginning), and every checkpoint
 * point ({@link #checkpoint}, {@link #checkpointNow}) advances it by one <em>before</em> it takes
 * a checkpoint. So a checkpoint always holds the state after iteration t together with "t + 1
 * comes next", and a restart resumes with the iteration after the last one the checkpoint
 * contains, whatever else the loop does: the loop above cannot run an iteration twice. A program
 * makes exactly one checkpoint point per iteration (its last sync of the iteration); values
 * declared with {@link #value} are state like the segments, taken at the same point.
 *
 * <p><b>Modules.</b> The selected {@code cr} module keeps the checkpoints: {@code files} (a
 * directory, survives lost JVMs), {@code memory} (this JVM: a threads-engine section rolls back
 * after a process threw), or {@code none} (the default: {@link #checkpoint} is just a sync).
 *
 * <p><b>When one is due.</b> Process 0 decides at each {@link #checkpoint}: the module's interval
 * ({@code lpf.cr.<module>.every}, {@code lpf run --checkpoint-every}) has passed since the last
 * one, someone outside asked ({@code lpf checkpoint DIR}), or the program called
 * {@link #checkpointNow}. Each process then copies its declared state into a staging buffer and
 * goes on computing while a writer thread writes it; the next checkpoint waits for that write.
 * Process 0 commits a checkpoint once every process reported its part written (it learns that at
 * a later checkpoint point), and keeps the newest {@code keep}.
 *
 * <p><b>Cost.</b> {@link #checkpoint} when none is due: one sync in which process 0 sends each
 * process 8 bytes (and a process whose last write finished sends process 0 16 bytes); no
 * allocation, no I/O. When one is due: a copy of the declared state, and the serialisation of
 * the values. {@link #init} registers one global slot and ends a superstep; the program must have
 * reserved {@link #REGISTER_SLOTS} slot and {@link #queueEntries(int)} queue entries beyond its own
 * ({@link #needs(int)} declares them as a {@link Capacity}, to be added to the program's own).
 *
 * <p>All methods are collective (every process calls them in the same order) except
 * {@link #protect}, {@link #value} and the accessors. Not thread-safe: one object per process.
 */
public final class Checkpoints implements AutoCloseable {
    /** Register slots {@link #init} needs beyond the program's own. */
    public static final int REGISTER_SLOTS = 1;
    private static final int DECISION = 0, ACCEPTED = 1, SETTLED = 1;
    /** How long {@link #close} waits for a write in flight before it leaves it to its (daemon) thread. */
    private static final long CLOSE_WAIT_MILLIS = 30_000;

    private final Context ctx;
    private final int pid, p;
    private final String program;
    private final CheckpointModule module;
    private final CheckpointStore store;
    private final CrSettings settings;
    private final CheckpointModule.Job job;
    /**
     * [0] process 0's decision (the seq to take, 0: none; in resume the candidate, negative: refused);
     * [1] at checkpoint points the highest seq process 0 has settled (committed or given up), in
     * resume the accepted seq (or who refused); [2+2q] the last part q wrote; [3+2q] the lowest
     * seq above the settled one whose part q failed to write (0: none).
     */
    private final long[] control;
    private final Memslot controlSlot;
    private final List<Entry> entries = new ArrayList<>();

    private boolean resumed, closed;
    /** The iteration that comes next: advanced by every checkpoint point, restored by {@link #resume}. */
    private long iteration;
    private boolean tookCheckpoint, iterationReadBeforeResume;
    private long reportedGood, reportedFailed;
    private volatile long lastGood;
    /** Seqs whose write failed at this process, oldest first (written by the writer thread; guarded by itself). */
    private final long[] failures = new long[64];
    private int failureCount;
    private Thread writer;
    private MemorySegment staging = MemorySegment.NULL;
    private final String runId;
    // Process 0 only: the next seq to take, the highest seq settled (committed or given up), the last committed.
    private long nextSeq, lastTakenNanos, settled, lastCommitted;
    private final Map<Long, Long> superstepOf = new LinkedHashMap<>();
    private final Map<Long, Long> iterationOf = new LinkedHashMap<>();

    /** One declared piece of state. */
    private record Entry(String name, MemorySegment segment, Value<?> value) {}

    /**
     * A small serialisable value that survives with the checkpoints: state like a protected
     * segment, taken at the checkpoint point with the rest. The iteration is not one: that is
     * {@link Checkpoints#iteration()}, which the checkpoint point advances.
     *
     * @param <T> its type
     */
    public static final class Value<T extends Serializable> {
        private final String name;
        private final Class<?> type;
        private T value;

        private Value(String name, T initial) {
            this.name = name;
            this.value = initial;
            this.type = initial.getClass();
        }

        /** @return the current value */
        public T get() { return value; }

        /** @param v the new value, not null */
        public void set(T v) { value = Objects.requireNonNull(v, () -> "Checkpoints.Value(" + name + ").set(null)"); }

        @Override
        public String toString() { return name + "=" + value; }
    }

    /**
     * The holder {@link Checkpoints#counter} used to return. A counter the loop advanced after the
     * checkpoint point made a restart repeat an iteration, so {@code counter} now refuses at once;
     * use {@link Checkpoints#iteration()}.
     *
     * @deprecated replaced by {@link Checkpoints#iteration()}, advanced by the checkpoint point itself
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static final class Counter {
        private Counter() {}

        /** @return never: no {@code Counter} is made */
        public long get() { throw new UnsupportedOperationException(); }

        /** @param v ignored: no {@code Counter} is made */
        public void set(long v) { throw new UnsupportedOperationException(); }
    }

    private Checkpoints(Context ctx, String program, CheckpointModule module) {
        this.ctx = ctx;
        this.pid = ctx.pid();
        this.p = ctx.nprocs();
        this.program = program;
        this.module = module;
        this.job = new CheckpointModule.Job(program, p, pid);
        this.settings = module == null ? null : module.settings();
        this.control = new long[2 + 2 * p];
        CheckpointStore opened = null;
        Memslot slot;
        try {
            if (module != null) opened = module.open(job);
            try {
                slot = ctx.registerGlobal(MemorySegment.ofArray(control));
            } catch (IllegalStateException e) {
                throw new IllegalStateException("Checkpoints.init at pid " + pid + " of " + p + ": cannot register its "
                        + "control slot: " + e.getMessage() + ". Checkpoints.init needs " + REGISTER_SLOTS
                        + " free register slot and " + queueEntries(p) + " queue entries beyond the program's own: "
                        + "ctx.resizeMemoryRegister(own slots + " + REGISTER_SLOTS + ") and ctx.resizeMessageQueue(own "
                        + "requests + " + queueEntries(p) + "), then ctx.sync(), before Checkpoints.init", e);
            }
        } catch (RuntimeException e) {
            if (opened != null) opened.close();
            throw e;
        }
        this.store = opened;
        this.controlSlot = slot;
        String run = settings == null ? "" : settings.run();
        this.runId = run.isEmpty() ? Attempt.current().runId() : run;
        if (store != null && pid == 0) {
            // Listing the store and starting its watcher happen here, so that a checkpoint point does no I/O.
            nextSeq = store.nextSeq();
            settled = nextSeq - 1;
            store.discardOutsideRequest();
            store.outsideRequest();
        }
        this.lastTakenNanos = System.nanoTime();
    }

    /**
     * Starts checkpointing for this process: selects the {@code cr} module, opens its store,
     * registers the control slot and ends the superstep (one sync). Collective.
     *
     * @param ctx     the context, at this process
     * @param program the program's name and whatever identifies its input (e.g.
     *                {@code "PageRank 16 16 4000"}): a checkpoint of another name is refused at
     *                restart; equal on every process
     * @return the object
     * @throws IllegalStateException if the register is full (the message says what to reserve), or
     *                               the module's store cannot be opened (e.g. an unwritable directory)
     */
    public static Checkpoints init(Context ctx, String program) {
        Objects.requireNonNull(ctx, "Checkpoints.init: ctx is null");
        Objects.requireNonNull(program, "Checkpoints.init: program is null");
        if (program.isBlank() || program.contains("\n")) {
            throw new IllegalArgumentException("Checkpoints.init(program='" + program + "'): give a non-blank one-line name");
        }
        Component selected = Components.installed().select(Framework.CR);
        Checkpoints cr = new Checkpoints(ctx, program, selected instanceof CheckpointModule m ? m : null);
        try {
            ctx.sync();
        } catch (RuntimeException e) {
            cr.close();
            throw e;
        }
        return cr;
    }

    /**
     * @param nprocs the number of processes
     * @return the queue entries {@link #init} needs beyond the program's own at every process
     */
    public static long queueEntries(int nprocs) { return Math.max(1, nprocs); }

    /**
     * What {@link #init} and every later call of the object need reserved on {@code nprocs}
     * processes, for adding to the program's own needs before anything is initialised
     * ({@link Capacity#plus}, {@link Capacity#reserve}): {@link #REGISTER_SLOTS} register slot and
     * {@code nprocs − 1} queue entries, the requests process 0 queues at a checkpoint point (one
     * put to every other process; every other process queues at most one). Exact on engines that
     * count the requests a process queues, as lpf4j's do; {@link #queueEntries(int)} is the older,
     * one larger bound. O(1).
     *
     * @param nprocs processes of the context, ≥ 1
     * @return the capacity the object needs
     * @throws IllegalArgumentException if {@code nprocs < 1}
     */
    public static Capacity needs(int nprocs) {
        if (nprocs < 1) throw new IllegalArgumentException("Checkpoints.needs(nprocs=" + nprocs + "): need nprocs >= 1");
        return Capacity.of(REGISTER_SLOTS, nprocs - 1L);
    }

    /** @return the selected module's name ({@code none} if it cannot checkpoint) */
    public String module() { return module == null ? "none" : module.name(); }

    /** @return where checkpoints go, or "nowhere" under {@code none} */
    public String where() { return store == null ? "nowhere (cr module none)" : store.where(); }

    /**
     * Declares a segment whose content must survive: checkpoints copy it, {@link #resume} writes
     * it back in place. Local; before {@link #resume}.
     *
     * @param name    a name unique among this object's declarations
     * @param segment the segment (heap or native, registered or not); its size must be the same
     *                when the checkpoint is restored
     * @return this
     */
    public Checkpoints protect(String name, MemorySegment segment) {
        Objects.requireNonNull(segment, "Checkpoints.protect: segment is null");
        declare(name, segment, null);
        return this;
    }

    /**
     * Declares a small serialisable value that must survive; {@link #resume} replaces it by the
     * checkpoint's. Local; before {@link #resume}.
     *
     * @param name    a name unique among this object's declarations
     * @param initial its value in a run that does not resume, not null
     * @param <T>     its type
     * @return the holder to read and update it through
     */
    public <T extends Serializable> Value<T> value(String name, T initial) {
        Objects.requireNonNull(initial, () -> "Checkpoints.value(" + name + ", null): give an initial value");
        Value<T> v = new Value<>(name, initial);
        declare(name, null, v);
        return v;
    }

    /**
     * Refuses at once: a counter that the program advanced itself was checkpointed together with
     * the state it had at the checkpoint point, so a loop that advanced it after
     * {@code cr.checkpoint()} (in a {@code for} update) restarted into an iteration it had already
     * done. The iteration is now this object's own: {@link #iteration()}, advanced by every
     * checkpoint point.
     *
     * @param name    the counter's name
     * @param initial its initial value
     * @return never returns
     * @throws UnsupportedOperationException always, saying how to write the loop instead
     * @deprecated use {@link #iteration()}: {@code for (long t = cr.iteration(); t < steps; t = cr.checkpoint())}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Counter counter(String name, long initial) {
        throw new UnsupportedOperationException("Checkpoints.counter(\"" + name + "\", " + initial + ") at pid " + pid
                + ": a counter the program advances itself can be checkpointed out of step with the state (a loop "
                + "that advances it after cr.checkpoint() repeats an iteration after a restart). The checkpoint point "
                + "now counts the iterations: write the loop as for (long t = cr.iteration(); t < steps; "
                + "t = cr.checkpoint()) { ... } after cr.resume(), and start from iteration " + initial
                + " by adding it to t");
    }

    private void declare(String name, MemorySegment segment, Value<?> value) {
        if (resumed) throw new IllegalStateException("Checkpoints: declare '" + name + "' before resume()");
        if (name == null || name.isBlank() || name.contains(":") || name.contains("\n")) {
            throw new IllegalArgumentException("Checkpoints: name '" + name + "' must be non-blank, without ':' or a line break");
        }
        for (Entry e : entries) {
            if (e.name.equals(name)) throw new IllegalArgumentException("Checkpoints: '" + name + "' is declared twice");
        }
        entries.add(new Entry(name, segment, value));
    }

    /**
     * Restores the declared state from the newest complete, undamaged checkpoint if this run is a
     * restart (a {@link Restarts} retry, {@code lpf run --restarts}/{@code --resume}, or the
     * module's {@code resume} parameter); otherwise leaves it alone. A retry of {@code lpf run
     * --restarts} or {@link Restarts} restores only checkpoints its own run made; an explicit
     * restart ({@code --resume}) any of the same program. Collective; three syncs, plus two per
     * damaged checkpoint skipped. Process 0 prints one line to standard error saying what it
     * restored and what it skipped.
     *
     * @return what was restored, or empty when the run starts from the beginning
     * @throws IllegalStateException if the newest complete checkpoint was made by another program,
     *                               another p or another lpf4j version, or with other declarations:
     *                               the message names what differs (at every process)
     */
    public Optional<Restored> resume() {
        if (resumed) throw new IllegalStateException("Checkpoints.resume() at pid " + pid + ": called twice");
        if (closed) throw new IllegalStateException("Checkpoints.resume() at pid " + pid + ": closed");
        if (iterationReadBeforeResume) {
            throw new IllegalStateException("Checkpoints.resume() at pid " + pid + ": cr.iteration() was read before "
                    + "resume(), so a restart would start the loop from the wrong iteration; call cr.resume() first, then "
                    + "for (long t = cr.iteration(); t < steps; t = cr.checkpoint()) { ... }");
        }
        resumed = true;
        Attempt attempt = Attempt.current();
        boolean wanted = store != null && (attempt.number() > 0 || attempt.resume() || settings.resume());
        if (!wanted) return Optional.empty();
        try {
            return restoreNewestUsable(attempt);
        } finally {
            // Verdicts must not pass for write reports at the checkpoint points that follow.
            java.util.Arrays.fill(control, 0);
            reportedGood = reportedFailed = 0;
        }
    }

    private Optional<Restored> restoreNewestUsable(Attempt attempt) {
        boolean anyRun = settings.resume() || attempt.resume() || runId.isEmpty();
        List<Long> candidates = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        if (pid == 0) {
            List<Long> committed = store.committed();
            long newest = committed.isEmpty() ? 0 : committed.get(0);
            for (long s : store.incomplete()) {
                if (s > newest) notes.add("checkpoint " + s + " is incomplete (the job ended while writing it): ignored");
            }
            for (long c : committed) {
                String run = commitMark(c).getOrDefault("run", "");
                if (anyRun || run.equals(runId)) candidates.add(c);
                else notes.add("checkpoint " + c + " was made by another run of the job: ignored by this retry");
            }
        }
        int next = 0;
        long previousVerdict = 0;
        PartFormat.Decoded part = null;
        String problem = null;
        while (true) {
            if (pid == 0) {
                long candidate = 0, accepted = 0;
                if (previousVerdict == 1) {
                    accepted = candidates.get(next - 1);
                } else if (previousVerdict >= 3) {
                    candidate = -candidates.get(next - 1);
                    accepted = previousVerdict - 3; // the pid that refused it
                } else if (next < candidates.size()) {
                    candidate = candidates.get(next++);
                    if (refusal(commitMark(candidate)) != null) candidate = -candidate;
                }
                control[DECISION] = candidate;
                control[ACCEPTED] = accepted;
                for (int q = 1; q < p; q++) ctx.put(controlSlot, 0, q, controlSlot, 0, 16);
            }
            ctx.sync();
            long candidate = control[DECISION];
            if (candidate == 0 && control[ACCEPTED] > 0) break;
            if (candidate == 0) {
                if (pid == 0) {
                    notes.add(candidates.isEmpty() ? "no complete checkpoint of this run in " + store.where()
                            : "no usable checkpoint among " + candidates);
                    long redone = redone(attempt, 0);
                    System.err.println("lpf4j cr: starting " + program + " from the beginning: " + String.join("; ", notes)
                            + redoneText(redone));
                    attempt.resumed(new Restarts.Resumption(attempt.number(), 0, 0, redone));
                }
                return Optional.empty();
            }
            if (candidate < 0) {
                String why = refusal(commitMark(-candidate));
                if (why == null) {
                    why = problem != null ? problem : "pid " + control[ACCEPTED] + "'s part does not fit this run's "
                            + "declarations (see its message)";
                }
                throw new IllegalStateException("Checkpoints.resume at pid " + pid + ": checkpoint " + (-candidate) + " in "
                        + store.where() + " cannot be restored by this run: " + why);
            }
            long verdict;
            problem = null;
            try {
                part = PartFormat.read(store.read(candidate), "part " + pid + " of checkpoint " + candidate + " in " + store.where());
                problem = misfit(part, candidate);
                verdict = problem == null ? 1 : 3 + pid;
            } catch (IOException e) {
                problem = e.getMessage();
                verdict = 2;
            }
            if (verdict == 2) System.err.println("lpf4j cr: pid " + pid + ": " + problem + ": trying an older checkpoint");
            control[2 + 2 * pid] = verdict;
            if (pid != 0) ctx.put(controlSlot, 8L * (2 + 2 * pid), 0, controlSlot, 8L * (2 + 2 * pid), 8);
            ctx.sync();
            if (pid == 0) {
                previousVerdict = 1;
                for (int q = 0; q < p; q++) {
                    long v = control[2 + 2 * q];
                    if (v >= 3) {
                        previousVerdict = v;
                        break;
                    }
                    if (v != 1 && previousVerdict == 1) {
                        previousVerdict = v;
                        notes.add("checkpoint " + candidate + " has a damaged or missing part at pid " + q
                                + " (see its message): skipped");
                    }
                }
            }
        }
        long seq = control[ACCEPTED];
        if (part == null || !part.header().get("seq").equals(Long.toString(seq))) {
            throw new IllegalStateException("Checkpoints.resume at pid " + pid + ": process 0 accepted checkpoint " + seq
                    + " but this process verified " + (part == null ? "none" : part.header().get("seq")));
        }
        CheckpointEvent restored = new CheckpointEvent();
        restored.begin();
        restore(part);
        iteration = Long.parseLong(part.header().get("iteration"));
        long superstep = Long.parseLong(part.header().getOrDefault("superstep", "0"));
        emit(restored, "restored", seq, superstep, part.bytes().byteSize());
        long redone = -1;
        if (pid == 0) {
            lastCommitted = seq;
            lastTakenNanos = System.nanoTime();
            redone = redone(attempt, iteration);
            System.err.println("lpf4j cr: " + program + " resumed from checkpoint " + seq + " at iteration " + iteration
                    + " (superstep " + superstep + ") in " + store.where()
                    + (attempt.number() > 0 ? ", restart " + attempt.number() : "")
                    + (notes.isEmpty() ? "" : "; " + String.join("; ", notes)) + redoneText(redone));
            attempt.resumed(new Restarts.Resumption(attempt.number(), seq, iteration, redone));
        }
        return Optional.of(new Restored(seq, superstep, iteration, redone, store.where(), attempt.number(), notes));
    }

    /**
     * Process 0 of a retry: how many iterations the failed run had done beyond {@code from}, as far
     * as the store's record of its progress tells (none recorded: it never passed a checkpoint
     * point); -1 where no run failed before this one (an explicit restart).
     */
    private long redone(Attempt attempt, long from) {
        if (attempt.number() == 0 || runId.isEmpty()) return -1;
        return Math.max(0, store.reached(runId) - from);
    }

    private static String redoneText(long redone) {
        return redone < 0 ? "" : "; " + redone + " iteration" + (redone == 1 ? "" : "s") + " redone";
    }

    /** @return the fields of checkpoint {@code seq}'s commit mark, empty if it cannot be read */
    private Map<String, String> commitMark(long seq) {
        String text = store.description(seq);
        return text == null ? Map.of() : PartFormat.fields(text);
    }

    /** @return the fields that say which job made a checkpoint (of a part's header and of a commit mark) */
    private Map<String, String> jobFields() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("program", program);
        f.put("nprocs", Integer.toString(p));
        f.put("lpf4j", PartFormat.LPF4J_VERSION);
        return f;
    }

    /** @return why a checkpoint with these job fields does not belong to this job, or null if it does */
    private String refusal(Map<String, String> d) {
        if (d.isEmpty()) return "its commit mark cannot be read";
        List<String> differ = new ArrayList<>();
        if (!program.equals(d.get("program"))) differ.add("program '" + d.get("program") + "' (this run: '" + program + "')");
        if (!Integer.toString(p).equals(d.get("nprocs"))) differ.add("p = " + d.get("nprocs") + " (this run: " + p + ")");
        if (!PartFormat.LPF4J_VERSION.equals(d.get("lpf4j"))) {
            differ.add("lpf4j " + d.get("lpf4j") + " (this run: " + PartFormat.LPF4J_VERSION + ")");
        }
        return differ.isEmpty() ? null : "it was made by " + String.join(", ", differ);
    }

    /** @return what in this verified part does not fit this run's declarations, or null */
    private String misfit(PartFormat.Decoded part, long seq) {
        String where = "checkpoint " + seq + " in " + store.where();
        String refusal = refusal(part.header());
        if (refusal != null) return where + ": part " + pid + ": " + refusal;
        if (!Integer.toString(pid).equals(part.header().get("pid"))) return where + ": part " + pid + " says pid " + part.header().get("pid");
        if (!part.header().getOrDefault("iteration", "").matches("\\d+")) {
            return where + ": part " + pid + " does not record the iteration that comes next (made before checkpoints did)";
        }
        String committedAt = commitMark(seq).get("superstep");
        if (committedAt != null && !committedAt.equals(part.header().get("superstep"))) {
            return where + ": part " + pid + " was taken at superstep " + part.header().get("superstep")
                    + ", the commit mark says " + committedAt + " (a part of another run?)";
        }
        List<String> differ = new ArrayList<>();
        if (part.entries().size() != entries.size()) {
            differ.add(part.entries().size() + " declarations (this run: " + entries.size() + ")");
        }
        for (int i = 0; i < Math.min(entries.size(), part.entries().size()); i++) {
            Entry mine = entries.get(i);
            PartFormat.Entry theirs = part.entries().get(i);
            String kind = mine.segment != null ? "segment" : "value";
            if (!mine.name.equals(theirs.name()) || !kind.equals(theirs.kind())) {
                differ.add("declaration " + i + " is " + theirs.kind() + " '" + theirs.name() + "' (this run: " + kind + " '"
                        + mine.name + "')");
            } else if (mine.segment != null && mine.segment.byteSize() != theirs.length()) {
                differ.add("segment '" + mine.name + "' has " + theirs.length() + " bytes (this run: "
                        + mine.segment.byteSize() + ")");
            }
        }
        return differ.isEmpty() ? null : where + ": part " + pid + " does not fit this run's declarations: "
                + String.join(", ", differ);
    }

    private void restore(PartFormat.Decoded part) {
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            MemorySegment data = part.data(i);
            if (e.segment != null) {
                MemorySegment.copy(data, 0, e.segment, 0, data.byteSize());
            } else {
                restoreValue(e.value, data);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Serializable> void restoreValue(Value<T> v, MemorySegment data) {
        ClassLoader loader = v.type.getClassLoader();
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(data.toArray(ValueLayout.JAVA_BYTE))) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
                try {
                    return Class.forName(desc.getName(), false, loader);
                } catch (ClassNotFoundException e) {
                    return super.resolveClass(desc);
                }
            }
        }) {
            v.value = (T) v.type.cast(in.readObject());
        } catch (IOException | ClassNotFoundException | ClassCastException e) {
            throw new IllegalStateException("Checkpoints.resume: value '" + v.name + "' cannot be read back as a "
                    + v.type.getName() + ": " + e, e);
        }
    }

    /**
     * The iteration that comes next: 0 in a run from the beginning, the one after the checkpoint's
     * last after {@link #resume} restored one, one more after every checkpoint point. Read it
     * after {@link #resume} ({@link #resume} refuses to run after it was read). Local, O(1).
     *
     * @return the iteration that comes next
     */
    public long iteration() {
        if (!resumed) iterationReadBeforeResume = true;
        return iteration;
    }

    /**
     * A checkpoint point, the end of an iteration: ends the superstep like {@code ctx.sync()}
     * (requests queued before it are executed), advances {@link #iteration()} by one, and then
     * takes a checkpoint if one is due (see the class comment), which so records the state after
     * this iteration together with the iteration that comes next. Collective.
     *
     * @return the iteration that comes next (the new {@link #iteration()})
     */
    public long checkpoint() { return point(false); }

    /**
     * A checkpoint point at which the program asks for a checkpoint: as {@link #checkpoint}, but
     * one is taken whatever the interval says (under a module that can keep checkpoints).
     * Collective: every process calls it at the same point.
     *
     * @return the iteration that comes next (the new {@link #iteration()})
     */
    public long checkpointNow() { return point(true); }

    /** @return whether the last checkpoint point took a checkpoint (false before the first) */
    public boolean tookCheckpoint() { return tookCheckpoint; }

    private long point(boolean force) {
        if (closed) throw new IllegalStateException("Checkpoints.checkpoint at pid " + pid + ": closed");
        if (store == null) {
            ctx.sync();
            iteration++;
            tookCheckpoint = false;
            return iteration;
        }
        resumed = true; // declarations end here even without resume()
        tookCheckpoint = point(force, true);
        return iteration;
    }

    /**
     * The checkpoint point: reports this process's writes, learns process 0's decision, lets
     * process 0 commit; takes a checkpoint if {@code mayTake} and one is due.
     */
    private boolean point(boolean force, boolean mayTake) {
        long now = 0;
        if (pid == 0) {
            now = System.nanoTime();
            boolean asked = store.outsideRequest(); // consumed even when the interval is due too
            boolean due = mayTake && (force || asked || settings.everyNanos() > 0 && now - lastTakenNanos >= settings.everyNanos());
            if (asked && !mayTake) store.requestAgain();
            control[2] = lastGood;
            control[3] = lowestFailureAbove(settled);
            control[DECISION] = due ? nextSeq : 0;
            control[SETTLED] = settled;
            for (int q = 1; q < p; q++) ctx.put(controlSlot, 0, q, controlSlot, 0, 16);
        } else {
            long good = lastGood, failed = lowestFailureAbove(control[SETTLED]);
            if (good != reportedGood || failed != reportedFailed) {
                control[2 + 2 * pid] = good;
                control[3 + 2 * pid] = failed;
                ctx.put(controlSlot, 8L * (2 + 2 * pid), 0, controlSlot, 8L * (2 + 2 * pid), 16);
                reportedGood = good;
                reportedFailed = failed;
            }
        }
        ctx.sync();
        long decision = control[DECISION];
        if (mayTake) {
            iteration++;
            if (pid == 0 && !runId.isEmpty()) store.progress(runId, iteration);
        }
        if (pid == 0) commitWhatIsWritten();
        if (!mayTake) return false;
        if (decision <= 0) return false;
        take(decision);
        if (pid == 0) {
            nextSeq = decision + 1;
            lastTakenNanos = now;
        }
        return true;
    }

    /** @return the lowest seq above {@code floor} whose write failed at this process, 0 if none */
    private long lowestFailureAbove(long floor) {
        synchronized (failures) {
            long lowest = 0;
            for (int i = 0; i < failureCount; i++) {
                long f = failures[i];
                if (f > floor && (lowest == 0 || f < lowest)) lowest = f;
            }
            return lowest;
        }
    }

    private void recordFailure(long seq) {
        synchronized (failures) {
            if (failureCount == failures.length) {
                System.arraycopy(failures, 1, failures, 0, failures.length - 1);
                failureCount--;
            }
            failures[failureCount++] = seq;
        }
    }

    /**
     * Process 0: commits the newest checkpoint that every process reported written with no failed
     * write since the last settled one, and gives up (settles) a checkpoint some process failed to
     * write, saying so. A report of a failure at or below the settled seq is stale (the process
     * had not yet learnt the settled seq): nothing is committed until a fresh report comes.
     */
    private void commitWhatIsWritten() {
        long everyone = Long.MAX_VALUE, failed = 0;
        int failedAt = -1;
        for (int q = 0; q < p; q++) {
            everyone = Math.min(everyone, control[2 + 2 * q]);
            long f = control[3 + 2 * q];
            if (f == 0) continue;
            if (f <= settled) return; // stale: wait for this process's next report
            if (failed == 0 || f < failed) {
                failed = f;
                failedAt = q;
            }
        }
        if (failed != 0 && failed <= everyone) {
            if (failed - 1 > settled) commit(failed - 1);
            System.err.println("lpf4j cr: checkpoint " + failed + " of " + program + " is not committed: pid " + failedAt
                    + " could not write its part (see its message); the newest complete checkpoint is "
                    + (lastCommitted == 0 ? "none" : Long.toString(lastCommitted)));
            settled = failed;
            long givenUp = failed;
            superstepOf.keySet().removeIf(s -> s <= givenUp);
            iterationOf.keySet().removeIf(s -> s <= givenUp);
        } else if (everyone > settled && everyone != Long.MAX_VALUE && (failed == 0 || everyone < failed)) {
            commit(everyone);
            settled = everyone;
        }
    }

    private void commit(long seq) {
        Long superstep = superstepOf.get(seq);
        Map<String, String> mark = jobFields();
        mark.put("seq", Long.toString(seq));
        mark.put("superstep", superstep == null ? "?" : superstep.toString());
        Long next = iterationOf.get(seq);
        mark.put("iteration", next == null ? "?" : next.toString());
        mark.put("run", runId);
        mark.put("written", java.time.Instant.now().toString());
        String description = PartFormat.lines(mark);
        CheckpointEvent committed = new CheckpointEvent();
        committed.begin();
        try {
            store.commit(seq, description);
            emit(committed, "committed", seq, superstep == null ? -1 : superstep, description.length());
            lastCommitted = seq;
            superstepOf.keySet().removeIf(s -> s <= seq);
            iterationOf.keySet().removeIf(s -> s <= seq);
            store.prune(settings.keep());
        } catch (IOException | RuntimeException e) {
            System.err.println("lpf4j cr: could not commit checkpoint " + seq + " of " + program + " in "
                    + store.where() + ": " + e + "; the job goes on");
        }
    }

    /** Copies the declared state into the staging buffer and hands it to a writer thread. */
    private void take(long seq) {
        CheckpointEvent taken = new CheckpointEvent();
        taken.begin();
        awaitWrite(0);
        long superstep = ctx.superstep();
        if (pid == 0) {
            superstepOf.put(seq, superstep);
            iterationOf.put(seq, iteration);
        }
        Map<String, String> fields = jobFields();
        fields.put("pid", Integer.toString(pid));
        fields.put("seq", Long.toString(seq));
        fields.put("superstep", Long.toString(superstep));
        fields.put("iteration", Long.toString(iteration));
        List<PartFormat.Entry> declared = new ArrayList<>();
        MemorySegment[] data = new MemorySegment[entries.size()];
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            data[i] = e.segment != null ? e.segment : MemorySegment.ofArray(serialise(e.value));
            declared.add(new PartFormat.Entry(e.name, e.segment != null ? "segment" : "value", data[i].byteSize()));
        }
        byte[] header = PartFormat.header(fields, declared);
        long[] lengths = new long[data.length];
        for (int i = 0; i < data.length; i++) lengths[i] = data[i].byteSize();
        long size = PartFormat.size(header, lengths);
        if (staging.byteSize() < size) staging = Arena.ofAuto().allocate(Math.max(size, staging.byteSize() * 2), 8);
        MemorySegment part = staging.asSlice(0, PartFormat.write(staging, header, data));
        CheckpointStore target = store;
        emit(taken, "taken", seq, superstep, part.byteSize());
        writer = Thread.ofPlatform().daemon().name("lpf4j-cr-writer-pid-" + pid).start(() -> {
            CheckpointEvent written = new CheckpointEvent();
            written.begin();
            try {
                target.write(seq, part);
                lastGood = seq;
                emit(written, "written", seq, superstep, part.byteSize());
            } catch (IOException | RuntimeException e) {
                recordFailure(seq);
                emit(written, "failed", seq, superstep, part.byteSize());
                System.err.println("lpf4j cr: pid " + pid + " could not write its part of checkpoint " + seq + " of "
                        + program + " to " + target.where() + ": " + e + "; the job goes on without it");
            }
        });
    }

    private void emit(CheckpointEvent e, String step, long seq, long superstep, long bytes) {
        e.end();
        if (!e.shouldCommit()) return;
        e.step = step;
        e.program = program;
        e.pid = pid;
        e.seq = seq;
        e.superstep = superstep;
        e.bytes = bytes;
        e.where = store.where();
        e.commit();
    }

    private static byte[] serialise(Value<?> v) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(v.value);
        } catch (IOException e) {
            throw new IllegalStateException("Checkpoints: value '" + v.name + "' (" + v.value.getClass().getName()
                    + ") cannot be serialised: " + e, e);
        }
        return bytes.toByteArray();
    }

    /** Waits for the write in flight, at most {@code millis} (0: as long as it takes); false if it is still running. */
    private boolean awaitWrite(long millis) {
        Thread w = writer;
        if (w == null) return true;
        boolean interrupted = false;
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (w.isAlive()) {
            try {
                if (millis == 0) w.join();
                else w.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                if (millis != 0 && System.nanoTime() >= deadline) break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        if (w.isAlive()) return false;
        writer = null;
        return true;
    }

    /**
     * Makes the checkpoints taken so far complete: waits for this process's write, then two syncs in
     * which every process reports its writes and process 0 commits what all wrote. A checkpoint
     * point does that only for the writes finished before it, so a program that wants its last
     * checkpoint usable (an explicit restart of a finished job) calls this at the end. Takes no
     * checkpoint. Collective.
     */
    public void flush() {
        if (closed) throw new IllegalStateException("Checkpoints.flush at pid " + pid + ": closed");
        if (store == null) {
            ctx.sync();
            return;
        }
        resumed = true;
        awaitWrite(0);
        // Two points: a process may report against a settled seq process 0 has since moved past;
        // the first point tells it the new one, the second brings its fresh report.
        point(false, false);
        point(false, false);
    }

    /** @return the newest checkpoint process 0 committed so far (0: none); meaningful at process 0 */
    public long lastCommitted() { return lastCommitted; }

    /**
     * Waits for this process's last write (at most 30 s: a write stuck on a stalled file system is
     * left to its daemon thread and reported), deregisters the control slot and closes the store.
     * Local (no sync), so it is safe in a {@code finally} of a failing process; a checkpoint whose
     * commit was still pending stays uncommitted ({@link #flush} commits it). Idempotent.
     */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        if (!awaitWrite(CLOSE_WAIT_MILLIS)) {
            System.err.println("lpf4j cr: pid " + pid + ": the write of a checkpoint of " + program + " to " + where()
                    + " is still running after " + CLOSE_WAIT_MILLIS / 1000 + " s; closing without it");
        }
        try {
            if (controlSlot != null) ctx.deregister(controlSlot);
        } catch (RuntimeException e) {
            // The context may be gone with a failed section; nothing left to release in it.
        } finally {
            if (store != null) store.close();
            // Outside Restarts nothing can resume from the memory module's checkpoints: drop them.
            if (pid == 0 && store instanceof MemoryStore) Attempt.current().forget(job);
        }
    }
}
