package org.lpf4j.engine.threads;

import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Spmd;

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
    static void exec(int p, int processors, Spmd spmd, Args args) {
        Team team = new Team(p);
        int base = processors / p, extra = processors % p;
        for (int i = 0; i < p; i++) {
            team.members[i] = new ThreadsContext(team, i, base + (i < extra ? 1 : 0),
                    i == 0 ? args : args.withoutIo(), false);
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
                    if (!abort[0]) runProcess(team, pid, spmd);
                }, "lpf-threads-" + team.id + "-pid" + i);
                t.setDaemon(true);
                t.start();
                threads[i] = t;
                started++;
            }
        } catch (OutOfMemoryError e) {
            abort[0] = true;
            go.countDown();
            joinAll(threads);
            throw new LpfOutOfMemoryException("exec(p=" + p + "): could start only " + started
                    + " threads; nothing ran", e);
        }
        go.countDown();
        try {
            runProcess(team, 0, spmd);
        } finally {
            joinAll(threads);
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
    static FatalException runMember(Team team, int pid, int freeP, Spmd spmd, Args args, String call) {
        team.members[pid] = new ThreadsContext(team, pid, freeP, args, false);
        runProcess(team, pid, spmd);
        team.awaitAllExited();
        return team.outcome(call);
    }

    private static void runProcess(Team team, int pid, Spmd spmd) {
        team.attach(pid);
        Throwable thrown = null;
        try {
            spmd.run(team.members[pid]);
        } catch (Throwable t) {
            thrown = t;
        } finally {
            team.exit(pid, thrown);
        }
    }

    private static void joinAll(Thread[] threads) {
        boolean interrupted = false;
        for (Thread t : threads) {
            if (t == null) continue;
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
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
