package org.lpf4j.spi;

/**
 * A module's answer to {@link Component#query()}: it can run here with a priority in 0..100, or it
 * declines with a reason a user can act on. Guidelines (from SSI): 0 means "works if nothing else
 * does"; at least 50 when the module finds itself in its native environment (e.g. launched by
 * mpirun); 100 only for modules that must be chosen.
 *
 * @param canRun   whether the module can run in this process
 * @param priority 0..100 when it can run, -1 when it declines
 * @param reason   why it declines, or {@code null} when it can run
 */
public record Query(boolean canRun, int priority, String reason) {

    /** Checks the invariants above. */
    public Query {
        if (canRun && (priority < 0 || priority > 100 || reason != null)) {
            throw new IllegalArgumentException("Query.run: priority " + priority + " not in [0, 100]");
        }
        if (!canRun && (priority != -1 || reason == null || reason.isBlank())) {
            throw new IllegalArgumentException("Query.decline: a declining module must give a reason");
        }
    }

    /**
     * @param priority 0..100
     * @return the answer "can run with this priority"
     */
    public static Query run(int priority) { return new Query(true, priority, null); }

    /**
     * @param reason why the module cannot run here (non-blank), e.g. "libmpi.so not found"
     * @return the answer "declined"
     */
    public static Query decline(String reason) { return new Query(false, -1, reason); }

    @Override
    public String toString() { return canRun ? "can run, priority " + priority : "declined: " + reason; }
}
