package org.lpf4j.engine.threads.group;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.SectionEvent;
import org.lpf4j.spi.kit.SuperstepRecorder;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * Starting, running and ending a section's process threads, shared by every engine that runs
 * processes as threads. Engines only.
 */
public final class ProcessThreads {
    private ProcessThreads() {}

    /**
     * Runs {@code process} for 0..n-1: process 0 on this thread, the others on new daemon platform
     * threads named by {@code names}; returns when every one has returned. Everyone or nobody:
     * the new threads wait until all of them are started; if one cannot be started, none runs
     * {@code process} (the started ones end at once and are joined) and this throws. Cost: n - 1
     * thread starts and joins.
     *
     * @param where names the section in the exceptions, e.g. {@code "exec(p=4)"}
     * @throws LpfOutOfMemoryException "{@code where}: could start only k threads; nothing ran" if
     *         a thread could not be started for lack of memory (k counts this thread)
     * @throws FatalException "{@code where}: could not start its threads; nothing ran" if a thread
     *         could not be started for another reason
     */
    public static void runAll(int n, IntFunction<String> names, IntConsumer process, String where) {
        runAll(n, names, process, where, Thread::new);
    }

    /**
     * {@link #runAll(int, IntFunction, IntConsumer, String)} with threads from {@code factory}
     * (named and made daemons here; tests use it to fail a start).
     */
    public static void runAll(int n, IntFunction<String> names, IntConsumer process, String where,
                              ThreadFactory factory) {
        runAll(n, names, process, where, factory, null);
    }

    /**
     * What a section does with processes that still run after it failed: a process stuck outside
     * lpf4j (an endless loop, a wait on something else) cannot be stopped, and a section whose
     * sync deadline named it should not wait for it forever.
     */
    public interface Stragglers {
        /** @return how long to wait for a process that still runs once the section has failed (ns), or -1: until it ends */
        long graceNanos();

        /** Process {@code pid}'s thread still ran {@link #graceNanos} after the failure: it was interrupted and is left running. */
        void leftRunning(int pid, Thread thread);
    }

    /**
     * {@link #runAll(int, IntFunction, IntConsumer, String, ThreadFactory)}, returning without the
     * processes that {@code stragglers} gives up on (null: waits for every one).
     */
    public static void runAll(int n, IntFunction<String> names, IntConsumer process, String where,
                              ThreadFactory factory, Stragglers stragglers) {
        CountDownLatch go = new CountDownLatch(1);
        boolean[] abort = new boolean[1]; // written before go opens, read after
        Thread[] threads = new Thread[n];
        int started = 1;
        try {
            for (int i = 1; i < n; i++) {
                final int pid = i;
                Thread t = factory.newThread(() -> {
                    if (uninterruptibly(go::await)) Thread.currentThread().interrupt();
                    if (!abort[0]) process.accept(pid);
                });
                t.setName(names.apply(i));
                t.setDaemon(true);
                t.start();
                threads[i] = t;
                started++;
            }
        } catch (Throwable e) { // OutOfMemoryError (no native thread), or anything else: start nobody
            abort[0] = true;
            go.countDown();
            joinAll(threads);
            if (e instanceof OutOfMemoryError) {
                throw new LpfOutOfMemoryException(where + ": could start only " + started + " threads; nothing ran", e);
            }
            throw new FatalException(where + ": could not start its threads; nothing ran", e);
        }
        go.countDown();
        try {
            process.accept(0);
        } finally {
            if (stragglers == null) joinAll(threads);
            else joinAll(threads, stragglers);
        }
    }

    /**
     * Waits until every thread has ended or, once {@code stragglers} gives a grace, until it has
     * passed since it was first given: a thread still running then is interrupted and left.
     */
    private static void joinAll(Thread[] threads, Stragglers stragglers) {
        boolean interrupted = false;
        long graceFrom = 0;
        for (int pid = 0; pid < threads.length; pid++) {
            Thread t = threads[pid];
            while (t != null && t.isAlive()) {
                try {
                    t.join(10); // returns as soon as the thread ends
                } catch (InterruptedException e) {
                    interrupted = true;
                }
                long grace = stragglers.graceNanos();
                if (grace < 0 || !t.isAlive()) continue;
                long now = System.nanoTime();
                if (graceFrom == 0) graceFrom = now;
                if (now - graceFrom >= grace) {
                    t.interrupt();
                    stragglers.leftRunning(pid, t);
                    break;
                }
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    /**
     * Runs one process's SPMD function on this thread: attaches the thread in {@code ledger},
     * records the section for the flight recorder, and returns what the function threw (nothing
     * escapes). The caller then records the exit (its failure, if any, before
     * {@link ProcessLedger#exit}).
     *
     * @param ledger the group's ledger
     * @param local  the process's index in the group (its pid there)
     * @param ctx    its context (its pid, nprocs and supersteps go to the flight recorder)
     * @param engine the engine's name for the flight recorder
     * @param call   {@code exec}, {@code hook}, {@code rehook} (anything from a parenthesis on is dropped)
     * @return what {@code spmd} threw, or {@code null}
     */
    public static Throwable run(ProcessLedger ledger, int local, Spmd spmd, Context ctx, String engine, String call) {
        ledger.attach(local);
        Throwable thrown = null;
        SectionEvent section = SuperstepRecorder.beginSection();
        try {
            spmd.run(ctx);
        } catch (Throwable t) {
            thrown = t;
        }
        SuperstepRecorder.endSection(section, engine, call, ctx.pid(), ctx.nprocs(), ctx.superstep(), thrown != null);
        return thrown;
    }

    /**
     * Waits until every thread has ended, even if this thread is interrupted meanwhile (a section
     * must not return while its processes still run); the interrupt is restored afterwards.
     * Cost: the longest thread's remaining run time.
     *
     * @param threads the threads; null entries (never started) are skipped
     */
    public static void joinAll(Thread[] threads) {
        boolean interrupted = false;
        for (Thread t : threads) {
            if (t != null) interrupted |= uninterruptibly(t::join);
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    /** A wait that an interrupt ends early. */
    private interface Wait {
        void run() throws InterruptedException;
    }

    /**
     * Waits until {@code wait} ends without an interrupt.
     *
     * @return whether this thread was interrupted meanwhile (the caller restores the interrupt)
     */
    private static boolean uninterruptibly(Wait wait) {
        boolean interrupted = false;
        while (true) {
            try {
                wait.run();
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
    }
}
