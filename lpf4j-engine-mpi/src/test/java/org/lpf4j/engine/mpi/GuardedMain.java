package org.lpf4j.engine.mpi;

/**
 * A rank as far as its {@link RankGuard} knows it (the launcher's variables come from the test):
 * starts the guard, says "ready", then ends normally ("end") or waits to be killed.
 */
public final class GuardedMain {
    private GuardedMain() {}

    public static void main(String[] args) throws InterruptedException {
        RankGuard.start();
        System.out.println("ready");
        System.out.flush();
        if (args.length > 0 && args[0].equals("end")) return;
        Thread.sleep(120_000);
    }
}
