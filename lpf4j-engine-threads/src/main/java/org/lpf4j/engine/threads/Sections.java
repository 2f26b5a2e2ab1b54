package org.lpf4j.engine.threads;

import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Spmd;
import org.lpf4j.engine.threads.group.ProcessThreads;

/**
 * Starting and ending sections of the threads engine: {@code exec} (new threads for pids
 * 1..p-1, pid 0 on the caller's thread), and the member side of {@code hook} and {@code rehook}
 * (existing threads, one per pid). Every started thread is joined before the call returns, except
 * one that still runs {@code lpf.engine.threads.syncTimeout} after its section failed (a process
 * stuck outside lpf4j: {@link Team#stragglers}); an exec starts all its threads or runs nobody
 * ({@link ProcessThreads#runAll}).
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
        ProcessThreads.runAll(p, pid -> "lpf-threads-" + team.id + "-pid" + pid, pid -> {
            team.enter();
            runProcess(team, pid, spmd, null, "exec");
        }, "exec(p=" + p + ")", Thread::new, team.stragglers());
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
        Throwable thrown = ProcessThreads.run(team.ledger(), pid, spmd, team.members[pid], "threads", call);
        if (beforeExit != null) beforeExit.run();
        team.exit(pid, thrown);
    }
}
