package org.lpf4j.engine.threads;

/**
 * Hands the same new {@link Team} to every process that enters round {@code r} of a collective
 * start (a {@code hook} on a thread group, a {@code rehook}): the first caller of a round makes
 * it. A process can only reach round r + 1 after every process has left round r, so one team at
 * a time suffices.
 */
final class Rounds {
    private final int p;
    private final Team parent;
    private long round;
    private final ThreadsSettings settings;
    private Team team;

    /**
     * @param p        processes per round
     * @param parent   the team whose processes start the rounds (rehook), or null (hook)
     * @param settings the settings every round's team is made with
     */
    Rounds(int p, Team parent, ThreadsSettings settings) {
        this.settings = settings;
        this.p = p;
        this.parent = parent;
    }

    synchronized Team teamFor(long r) {
        if (r > round) {
            round = r;
            team = new Team(p, parent, settings, parent == null);
        }
        return team;
    }
}
