package org.lpf4j.bench;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.spi.Parameters;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An SPMD section of p processes on the selected engine whose process 0 is driven by the
 * benchmark thread: {@link #open} starts the section on a helper thread and returns once every
 * process has registered its memory; process 0's context ({@link #ctx()}) is then handed to the
 * caller, while processes 1..p-1 mirror its supersteps (they only sync, in a loop) until
 * {@link #close()} delivers a stop flag to them by a put. Every superstep the caller makes with
 * {@code ctx().sync()} is thus matched by one sync on every other process.
 *
 * <p>Each process registers three global slots: {@link #src()} and {@link #dst()} of
 * {@code bytes} bytes each, and a control word; its message queue holds p requests.
 *
 * <p>Hand-off: the helper thread that runs process 0 blocks (does not touch the context) from
 * the hand-off until {@code close()}; the hand-off and the return are happens-before edges, so
 * the context is used by one thread at a time. A waiter that parks in a sync records its own
 * thread, and the engine's barrier unparks exactly the thread that parked, so the benchmark
 * thread waiting in {@code ctx().sync()} is woken as promptly as a process thread would be.
 */
public final class MirroredSection implements AutoCloseable {
    private final Context ctx;
    private final Memslot src;
    private final Memslot dst;
    private final Memslot control;
    private final MemorySegment controlWord;
    private final CountDownLatch released;
    private final Thread helper;
    private final CompletableFuture<Void> ended;

    private MirroredSection(Context ctx, Memslot src, Memslot dst, Memslot control, MemorySegment controlWord,
                            CountDownLatch released, Thread helper, CompletableFuture<Void> ended) {
        this.ctx = ctx;
        this.src = src;
        this.dst = dst;
        this.control = control;
        this.controlWord = controlWord;
        this.released = released;
        this.helper = helper;
        this.ended = ended;
    }

    /** What process 0 hands to the caller. */
    private record Handoff(Context ctx, Memslot src, Memslot dst, Memslot control, MemorySegment controlWord) {}

    /**
     * Starts the section on the selected engine, which is asked to provide {@code p} processes.
     *
     * @param p     processes, ≥ 1
     * @param bytes size of each process's source and destination areas
     * @return the section, with process 0 ready for the calling thread
     * @throws IllegalStateException if the section did not start within 60 s or failed while starting
     */
    public static MirroredSection open(int p, long bytes) {
        if (p < 1) throw new IllegalArgumentException("MirroredSection.open(p=" + p + "): p must be at least 1");
        Lpf.engine().settingsForProcesses(p).forEach(Parameters::set);
        Context root = Lpf.root();
        CompletableFuture<Handoff> ready = new CompletableFuture<>();
        CompletableFuture<Void> ended = new CompletableFuture<>();
        CountDownLatch released = new CountDownLatch(1);
        Thread helper = new Thread(() -> {
            try {
                root.exec(p, ctx -> process(ctx, bytes, ready, released));
                ended.complete(null);
            } catch (Throwable t) {
                ready.completeExceptionally(t);
                ended.completeExceptionally(t);
            }
        }, "lpf-bench-section-p" + p);
        helper.setDaemon(true);
        helper.start();
        try {
            Handoff h = ready.get(60, TimeUnit.SECONDS);
            return new MirroredSection(h.ctx(), h.src(), h.dst(), h.control(), h.controlWord(), released, helper, ended);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            released.countDown();
            throw new IllegalStateException("MirroredSection.open(p=" + p + ", bytes=" + bytes + ") failed: " + e, e);
        }
    }

    private static void process(Context ctx, long bytes, CompletableFuture<Handoff> ready, CountDownLatch released)
            throws InterruptedException {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment srcArea = arena.allocate(bytes, 64);
            MemorySegment dstArea = arena.allocate(bytes, 64);
            MemorySegment word = arena.allocate(Long.BYTES, Long.BYTES);
            ctx.resizeMemoryRegister(3);
            ctx.resizeMessageQueue(ctx.nprocs());
            ctx.sync();
            Memslot srcSlot = ctx.registerGlobal(srcArea);
            Memslot dstSlot = ctx.registerGlobal(dstArea);
            Memslot controlSlot = ctx.registerGlobal(word);
            ctx.sync();
            if (ctx.pid() == 0) {
                ready.complete(new Handoff(ctx, srcSlot, dstSlot, controlSlot, word));
                released.await(); // the caller drives process 0 until close()
            } else {
                do {
                    ctx.sync();
                } while (word.get(ValueLayout.JAVA_LONG, 0) == 0);
            }
        }
    }

    /** @return process 0's context, for the thread that opened the section */
    public Context ctx() { return ctx; }

    /** @return the global slot of each process's source area */
    public Memslot src() { return src; }

    /** @return the global slot of each process's destination area */
    public Memslot dst() { return dst; }

    /** @return the pid after 0 (0 itself when p = 1) */
    public int next() { return 1 % ctx.nprocs(); }

    /**
     * Stops the mirroring processes (one put per process and one sync), returns process 0 to its
     * thread and waits until the section has ended and its threads are gone.
     *
     * @throws IllegalStateException if the section failed or did not end within 60 s
     */
    @Override
    public void close() {
        try {
            controlWord.set(ValueLayout.JAVA_LONG, 0, 1);
            for (int q = 1; q < ctx.nprocs(); q++) ctx.put(control, 0, q, control, 0, Long.BYTES);
            ctx.sync();
        } catch (FatalException e) {
            throw new IllegalStateException("MirroredSection.close: the section had failed: " + e.getMessage(), e);
        } finally {
            released.countDown();
        }
        try {
            ended.get(60, TimeUnit.SECONDS);
            helper.join(TimeUnit.SECONDS.toMillis(60));
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException("MirroredSection.close: the section did not end cleanly: " + e, e);
        }
    }
}
