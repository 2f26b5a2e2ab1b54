package org.lpf4j.cr;

import org.lpf4j.Capacity;
import org.lpf4j.Context;
import org.lpf4j.spi.Component;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;

import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import static org.lpf4j.cr.ControlWords.DECISION;
import static org.lpf4j.cr.ControlWords.SETTLED;

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
 * the values. {@link #init} registers one global slot and ends two supersteps (the second checks
 * that every process selected the same module); the program must have
 * reserved {@link #REGISTER_SLOTS} slot and {@link #queueEntries(int)} queue entries beyond its own
 * ({@link #needs(int)} declares them as a {@link Capacity}, to be added to the program's own).
 *
 * <p>All methods are collective (every process calls them in the same order) except
 * {@link #protect}, {@link #value} and the accessors. Not thread-safe: one object per process.
 *
 * <p>Inside: this class is the API and the checkpoint point's exchange; {@link Coordinator} is
 * process 0's commit protocol, {@link CheckpointWriter} the writer thread, {@link Restorer} the
 * search of {@link #resume}, {@link Declarations} the declared state and its serialisation, and
 * {@link ControlWords} the registered words the processes agree through.
 */
public final class Checkpoints implements AutoCloseable {
    /** Register slots {@link #init} needs beyond the program's own. */
    public static final int REGISTER_SLOTS = 1;
    /** How long {@link #close} waits for a write in flight before it leaves it to its (daemon) thread. */
    private static final long CLOSE_WAIT_MILLIS = 30_000;

    private final Context ctx;
    private final int pid, p;
    private final String program;
    private final CheckpointModule module;
    private final CheckpointStore store;
    private final CrSettings settings;
    private final CheckpointModule.Job job;
    private final CheckpointJob facts;
    private final ControlWords control;
    private final Declarations declarations = new Declarations();
    private final CheckpointWriter writer;
    /** Process 0's commit protocol (unused at the other processes). */
    private final Coordinator coordinator;

    private boolean resumed, closed;
    /** The iteration that comes next: advanced by every checkpoint point, restored by {@link #resume}. */
    private long iteration;
    private boolean tookCheckpoint, iterationReadBeforeResume;
    private long reportedGood, reportedFailed;

    /**
     * A small serialisable value that survives with the checkpoints: state like a protected
     * segment, taken at the checkpoint point with the rest. The iteration is not one: that is
     * {@link Checkpoints#iteration()}, which the checkpoint point advances.
     *
     * @param <T> its type
     */
    public static final class Value<T extends Serializable> {
        // Read and restored by Declarations.
        final String name;
        final Class<?> type;
        T value;

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
        CheckpointStore opened = null;
        ControlWords words;
        try {
            if (module != null) opened = module.open(job);
            words = ControlWords.register(ctx);
        } catch (RuntimeException e) {
            if (opened != null) opened.close();
            throw e;
        }
        this.store = opened;
        this.control = words;
        String run = settings == null ? "" : settings.run();
        this.facts = new CheckpointJob(program, p, pid, store, run.isEmpty() ? Attempt.current().runId() : run);
        this.writer = new CheckpointWriter(facts);
        this.coordinator = new Coordinator(facts, settings, control.words);
        if (store != null && pid == 0) coordinator.open();
    }

    /**
     * Starts checkpointing for this process: selects the {@code cr} module, opens its store,
     * registers the control slot and ends the superstep; in one more superstep the processes check
     * that they selected the same module (two syncs, p − 1 puts of 8 bytes). Collective.
     *
     * @param ctx     the context, at this process
     * @param program the program's name and whatever identifies its input (e.g.
     *                {@code "PageRank 16 16 4000"}): a checkpoint of another name is refused at
     *                restart; equal on every process
     * @return the object
     * @throws IllegalStateException if the register is full (the message says what to reserve), or
     *                               the module's store cannot be opened (e.g. an unwritable directory),
     *                               or (at process 0) the processes selected different modules
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
            cr.agreeOnTheModule();
        } catch (RuntimeException e) {
            cr.close();
            throw e;
        }
        return cr;
    }

    /**
     * One more superstep of {@link #init}: every process tells process 0 which module it selected,
     * and process 0 refuses a section whose processes selected different ones (the JVMs' settings
     * differ: an environment variable set on one host, say), naming them, rather than let the
     * modules' different supersteps fail the section later with no reason given.
     */
    private void agreeOnTheModule() {
        long mine = moduleCode(module());
        if (pid != 0) {
            control.words[ControlWords.good(pid)] = mine;
            control.report(8);
        }
        ctx.sync();
        StringBuilder differ = new StringBuilder();
        for (int q = 1; pid == 0 && q < p; q++) {
            long theirs = control.words[ControlWords.good(q)];
            if (theirs != mine) differ.append(differ.isEmpty() ? "" : ", ").append("pid ").append(q).append(" '")
                    .append(moduleName(theirs)).append('\'');
        }
        java.util.Arrays.fill(control.words, 0); // the checkpoint points' reports start clean
        if (!differ.isEmpty()) {
            throw new IllegalStateException("Checkpoints.init(" + program + "): the processes selected different cr modules:"
                    + " pid 0 '" + module() + "', " + differ + "; give every process the same lpf.cr settings (lpf.cr,"
                    + " lpf.cr.files.dir: --param of lpf run, or Parameters.set before exec reach every process; an"
                    + " environment variable or -D of one JVM does not)");
        }
    }

    /** @return the first 8 characters of a module's name, as a word (the names are short ASCII words) */
    private static long moduleCode(String name) {
        long code = 0;
        for (int i = 0; i < Math.min(8, name.length()); i++) code |= (long) (name.charAt(i) & 0xFF) << (8 * i);
        return code;
    }

    /** @return the name a {@link #moduleCode} stands for */
    private static String moduleName(long code) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 8 && (code >>> (8 * i) & 0xFF) != 0; i++) b.append((char) (code >>> (8 * i) & 0xFF));
        return b.toString();
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
        declarations.declare(name, segment, value);
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
            Optional<Restored> restored = new Restorer(ctx, control, facts, settings, declarations).restoreNewestUsable(attempt);
            restored.ifPresent(r -> {
                iteration = r.iteration();
                if (pid == 0) coordinator.resumedFrom(r.seq());
            });
            return restored;
        } finally {
            // Verdicts must not pass for write reports at the checkpoint points that follow.
            java.util.Arrays.fill(control.words, 0);
            reportedGood = reportedFailed = 0;
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
        long[] words = control.words;
        long now = 0;
        if (pid == 0) {
            now = System.nanoTime();
            long due = coordinator.due(force, mayTake, now);
            words[ControlWords.good(0)] = writer.lastGood();
            words[ControlWords.failed(0)] = writer.lowestFailureAbove(coordinator.settled());
            words[DECISION] = due;
            words[SETTLED] = coordinator.settled();
            control.broadcastDecision();
        } else {
            long good = writer.lastGood(), failed = writer.lowestFailureAbove(words[SETTLED]);
            if (good != reportedGood || failed != reportedFailed) {
                words[ControlWords.good(pid)] = good;
                words[ControlWords.failed(pid)] = failed;
                control.report(16);
                reportedGood = good;
                reportedFailed = failed;
            }
        }
        ctx.sync();
        long decision = words[DECISION];
        if (mayTake) {
            iteration++;
            if (pid == 0 && !facts.runId().isEmpty()) store.progress(facts.runId(), iteration);
        }
        if (pid == 0) coordinator.commitWhatIsWritten();
        if (!mayTake) return false;
        if (decision <= 0) return false;
        take(decision);
        if (pid == 0) coordinator.took(decision, now);
        return true;
    }

    /** Copies the declared state into the staging buffer and hands it to the writer thread. */
    private void take(long seq) {
        CheckpointEvent taken = new CheckpointEvent();
        taken.begin();
        writer.await(0);
        long superstep = ctx.superstep();
        if (pid == 0) coordinator.taking(seq, superstep, iteration);
        Map<String, String> fields = facts.fields();
        fields.put("pid", Integer.toString(pid));
        fields.put("seq", Long.toString(seq));
        fields.put("superstep", Long.toString(superstep));
        fields.put("iteration", Long.toString(iteration));
        MemorySegment[] data = declarations.data();
        MemorySegment part = writer.stage(PartFormat.header(fields, declarations.describe(data)), data);
        facts.emit(taken, "taken", seq, superstep, part.byteSize());
        writer.write(seq, superstep, part);
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
        writer.await(0);
        // Two points: a process may report against a settled seq process 0 has since moved past;
        // the first point tells it the new one, the second brings its fresh report.
        point(false, false);
        point(false, false);
    }

    /** @return the newest checkpoint process 0 committed so far (0: none); meaningful at process 0 */
    public long lastCommitted() { return coordinator.lastCommitted(); }

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
        if (!writer.await(CLOSE_WAIT_MILLIS)) {
            System.err.println("lpf4j cr: pid " + pid + ": the write of a checkpoint of " + program + " to " + where()
                    + " is still running after " + CLOSE_WAIT_MILLIS / 1000 + " s; closing without it");
        }
        try {
            if (control.slot != null) ctx.deregister(control.slot);
        } catch (RuntimeException e) {
            // The context may be gone with a failed section; nothing left to release in it.
        } finally {
            if (store != null) store.close();
            // Outside Restarts nothing can resume from the memory module's checkpoints: drop them.
            if (pid == 0 && store instanceof MemoryStore) Attempt.current().forget(job);
        }
    }
}
