package org.lpf4j.engine.threads;

import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Spmd;
import org.lpf4j.engine.threads.kit.ProcessThreads;
import org.lpf4j.spi.kit.SectionEvent;
import org.lpf4j.spi.kit.SuperstepRecorder;

import java.util.concurrent.CountDownLatch;

/**
 * Starting and ending sections of the threads engine: {@code exec} (new threads for pids
 * 1..p-1, pid 0 on the caller's thread), and the member side of {@code hook} and {@code rehook}
 * (existing threads, one per pid). Every started thread is joined before the call returns.
 */
final class Sections {
    private Sections() {}

    /**
     * Runs {@code spmd} on {@code p} processes sharing {@code processors} processors.
     *
     * @throws FatalException           if the section failed
     * @throws LpfOutOfMemoryException  if its threads could not be started (none ran the SPMD function)
     */
    static void exec(int p, int processors, Spmd spmd, Args args, ThreadsSettings settings) {
        Team team;
        try {
            team = new Team(p, settings);
            int base = processors / p, extra = processors % p;
            for (int i = 0; i < p; i++) {
                team.members[i] = new ThreadsContext(team, i, base + (i < extra ? 1 : 0),
                        i == 0 ? args : args.withoutIo(), false);
            }
        } catch (OutOfMemoryError e) {
            throw new LpfOutOfMemoryException("exec(p=" + p + "): no memory for the section's state; nothing ran", e);
        }
        CountDownLatch go = new CountDownLatch(1);
        boolean[] abort = new boolean[1];
        Thread[] threads = new Thread[p];
        int started = 1;
        try {
            for (int i = 1; i < p; i++) {
                final int pid = i;
                Thread t = new Thread(() -> {
                    awaitUninterruptibly(go);
                    if (abort[0]) return;
                    team.enter();
                    runProcess(team, pid, spmd, null, "exec");
                }, "lpf-threads-" + team.id + "-pid" + i);
                t.setDaemon(true);
                t.start();
                threads[i] = t;
                started++;
            }
        } catch (Throwable e) { // OutOfMemoryError (no native thread), or anything else: start nobody
            abort[0] = true;
            go.countDown();
            ProcessThreads.joinAll(threads);
            if (e instanceof OutOfMemoryError) {
                throw new LpfOutOfMemoryException("exec(p=" + p + "): could start only " + started
                        + " threads; nothing ran", e);
            }
            throw new FatalException("exec(p=" + p + "): could not start its threads; nothing ran", e);
        }
        go.countDown();
        try {
            team.enter();
        runProcess(team, 0, spmd, null, "exec");
        } finally {
            ProcessThreads.joinAll(threads);
        }
        FatalException failure = team.outcome("exec(p=" + p + ")");
        if (failure != null) throw failure;
    }

    /**
     * Runs {@code spmd} as process {@code pid} of {@code team} on the current thread and waits
     * until every process of the team has finished (hook and rehook).
     *
     * @return the failure of the section, or {@code null}
     */
    static FatalException runMember(Team team, int pid, int freeP, Spmd spmd, Args args, String call,
                                    Runnable beforeExit) {
        team.members[pid] = new ThreadsContext(team, pid, freeP, args, false);
        team.enter();
        runProcess(team, pid, spmd, beforeExit, call);
        team.awaitAllExited(pid);
        return team.outcome(call);
    }

    /**
     * Runs one process's SPMD function and records its exit; {@code beforeExit} (if any) runs
     * before the exit is visible to the others.
     */
    private static void runProcess(Team team, int pid, Spmd spmd, Runnable beforeExit, String call) {
        team.attach(pid);
        Throwable thrown = null;
        SectionEvent section = SuperstepRecorder.beginSection();
        try {
            spmd.run(team.members[pid]);
        } catch (Throwable t) {
            thrown = t;
        } finally {
            SuperstepRecorder.endSection(section, "threads", call, pid, team.p, team.members[pid].superstep(), thrown != null);
            if (beforeExit != null) beforeExit.run();
            team.exit(pid, thrown);
        }
    }


    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }
}
