package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A hybrid section whose processes are threads that a host framework started and placed, not
 * lpf: the tasks of a Spark barrier stage, where the tasks one executor JVM runs form one node.
 * Inside a node the processes are the threads engine's (puts are copies, the sync a barrier);
 * between nodes the node's leader (its local process 0) takes part, as pid {@code node}, in a
 * section of whatever engine the caller runs over the nodes' leaders (the net engine's hosted
 * section, say), and carries its node's requests there, as on {@code lpf run --engine hybrid}.
 *
 * <p><b>Use.</b> Every process of the section calls {@link #join} on its own thread with the same
 * section key and the same groups. Then the leader ({@link Member#leads()}) calls
 * {@link Member#lead}, giving it the way to run a section over the nodes' leaders; every other
 * member calls {@link Member#run}. Each closes its member afterwards.
 *
 * <p><b>Locality.</b> The members of a node must be threads of one JVM and one class loader of
 * this class: they meet in this class's registry. A member that does not arrive is not waited
 * for in vain: the leader gives up after the arrival time it was given and fails the section
 * naming the missing pids; a member gives up on a leader that does not build the node in time.
 * A node leaves this JVM's registry once the section has ended (or its members gave up) and every
 * member that joined has left; if some never joined, a small marker of the failure stays for a
 * minute (pruned at later joins), and a process that joins in that time fails at once with it.
 * One joining later still finds no node: it waits its own arrival time and fails naming who did
 * not join, as any member whose node does not come together.
 *
 * <p><b>Cost.</b> Joining is a map lookup and a pass over the markers of failed nodes (few); the
 * node costs what a hybrid node costs (the threads' barrier per sync, the node level's sync when
 * the node has requests for other nodes or the superstep needs the others' word). Nothing is
 * allocated per put, get or sync.
 */
public final class HostedNode {
    private HostedNode() {}

    /** The nodes gathering in this JVM, by section key and node. */
    private static final ConcurrentHashMap<String, Gathering> GATHERINGS = new ConcurrentHashMap<>();
    /**
     * Nodes that left the registry before all their members joined, by the same key: why, for a
     * process that joins late. Written and read inside {@code GATHERINGS.compute} of that key.
     */
    private static final ConcurrentHashMap<String, Ended> ENDED = new ConcurrentHashMap<>();
    /** How long a late joiner meets its node's failure instead of gathering anew. */
    static final Duration LATE_JOIN_MARKER = Duration.ofSeconds(60);

    /** A node gone from the registry: why, and until when a late joiner is told so. */
    private record Ended(String reason, long untilNanos) {}

    /**
     * Joins this thread's node of a hosted section.
     *
     * @param section         names the section, the same at its every process and unique in this
     *                        JVM while it runs (Spark: the run and the attempt)
     * @param groups          the nodes: node k runs pids {@code groups[k]}, its local process l being
     *                        {@code groups[k][l]}; the same at every process
     * @param pid             this thread's process
     * @param nodesOnThisHost how many of the nodes share this host (their threads compete for its cores), ≥ 1
     * @param processors      the processors this node's processes share for their nested sections
     *                        ({@code probe().freeP()}; Spark: the node's task slots), ≥ 1
     * @return this thread's membership; close it when the section has ended
     * @throws IllegalArgumentException if the groups do not hold every pid once, or {@code pid} is not one of them
     * @throws FatalException           if this node of the section has ended already without this
     *                                  process (it joined late), naming why
     */
    public static Member join(String section, int[][] groups, int pid, int nodesOnThisHost, int processors) {
        Objects.requireNonNull(section, "HostedNode.join: section");
        Objects.requireNonNull(groups, "HostedNode.join: groups");
        String call = "HostedNode.join(" + section + ", pid " + pid + ")";
        Layout layout = Layout.ofGroups(call, groups);
        if (pid < 0 || pid >= layout.p()) throw new IllegalArgumentException(call + ": pid " + pid + " is not one of 0 to " + (layout.p() - 1));
        int node = layout.nodeOf(pid), local = layout.localOf(pid), t = layout.threads(node);
        long now = System.nanoTime();
        ENDED.values().removeIf(e -> e.untilNanos() - now < 0);
        Gathering g = GATHERINGS.compute(section + "/" + node, (key, old) -> {
            Ended ended = old == null ? ENDED.get(key) : null;
            if (ended != null) {
                throw new FatalException("HostedNode " + key + ": pid " + pid + " joined after its node had ended: " + ended.reason(), null);
            }
            Gathering x = old != null ? old : new Gathering(key, layout, node,
                    HybridSettings.resolve(Math.max(1, nodesOnThisHost), Math.max(1, processors)));
            x.join(local);
            return x;
        });
        return new Member(g, local);
    }

    /** @return the hosted nodes gathering in this JVM now (tests: none is left once every member closed) */
    static int gatherings() { return GATHERINGS.size(); }

    /** One thread's membership of its node. Used by that thread only, except {@link #abort}. */
    public static final class Member implements AutoCloseable {
        private final Gathering g;
        private final int local;
        private boolean closed;

        private Member(Gathering g, int local) {
            this.g = g;
            this.local = local;
        }

        /** @return whether this member is its node's leader (local process 0), which runs the node level */
        public boolean leads() { return local == 0; }

        /** @return this member's node */
        public int node() { return g.node; }

        /** @return the section's nodes */
        public int nodes() { return g.layout.nodes(); }

        /**
         * Leader only: runs the node. {@code nodeLevel} must run the function it is given as pid
         * {@link #node()} of a section over the nodes' leaders (of any engine); that function waits
         * until every member of the node has joined (at most {@code arrival}), builds the node,
         * runs {@code process} as this member's process, waits until the node's other members have
         * left theirs, and throws the node's failure, which the node level carries to the other
         * nodes. When the node level returns or throws, the other members learn the outcome.
         *
         * @param process   this member's SPMD function
         * @param arrival   how long to wait for the node's other members to join
         * @param nodeLevel runs the section over the nodes' leaders
         * @throws FatalException if the section failed: the processes' exceptions as cause and
         *                        suppressed, the nodes' reasons in the message
         */
        public void lead(Spmd process, Duration arrival, Consumer<Spmd> nodeLevel) {
            if (local != 0) throw new IllegalStateException("HostedNode: lead at local process " + local + ", not the leader");
            Objects.requireNonNull(process, "lead: process");
            Objects.requireNonNull(nodeLevel, "lead: nodeLevel");
            long arrivalNanos = arrival.toNanos();
            FatalException failure = null;
            try {
                nodeLevel.accept(nodes -> runNode(nodes, process, arrivalNanos));
            } catch (FatalException e) {
                failure = HybridRoot.unpack("hosted section " + g.key + " (" + g.layout + ")", e);
                throw failure;
            } catch (RuntimeException | Error e) {
                failure = new FatalException("hosted section " + g.key + ": node " + g.node + " could not run: " + e, e);
                throw e;
            } finally {
                g.end(failure);
            }
        }

        /** The leader's process of the section over the nodes. */
        private void runNode(Context nodes, Spmd process, long arrivalNanos) {
            if (nodes.nprocs() != g.layout.nodes() || nodes.pid() != g.node) {
                throw new IllegalStateException("HostedNode " + g.key + ": the node level's section has pid " + nodes.pid()
                        + " of " + nodes.nprocs() + ", not node " + g.node + " of " + g.layout.nodes());
            }
            g.awaitJoined(arrivalNanos);
            Link link = new Link(nodes);
            Node node = new Node(g.layout, g.node, link, g.settings);
            link.bind(node);
            Args args = nodes.args();
            for (int l = 0; l < node.t; l++) node.members[l] = new HybridContext(node, l, l == 0 ? args : args.withoutIo());
            g.publish(node);
            NodeSection.runProcess(node, 0, process, "exec");
            node.awaitAllExited();
            FatalException failure = node.outcome();
            if (failure != null) throw failure;
        }

        /**
         * A member other than the leader: waits until the leader has built the node (at most
         * {@code wait}), runs {@code process} as this member's process, then waits until the
         * section has ended.
         *
         * @throws FatalException if the section failed (with the leader's causes), or the leader
         *                        did not build the node in time
         */
        public void run(Spmd process, Duration wait) {
            if (local == 0) throw new IllegalStateException("HostedNode: run at the leader; it calls lead");
            Objects.requireNonNull(process, "run: process");
            Node node = g.awaitNode(local, wait.toNanos());
            if (node != null) NodeSection.runProcess(node, local, process, "exec");
            FatalException f = g.awaitEnd();
            if (f != null) {
                FatalException mine = new FatalException(f.getMessage(), f.getCause());
                for (Throwable s : f.getSuppressed()) mine.addSuppressed(s);
                throw mine;
            }
        }

        /**
         * Fails the node now, from any thread (the host killed the task): its processes' next
         * syncs throw {@link FatalException}, and those waiting in one are woken.
         */
        public void abort(String reason) { g.abort(reason); }

        /**
         * Leaves the node. The last member that joined to leave, once the section has ended (or
         * before it started: the members gave up on the leader), removes the node from this
         * JVM's registry; if some never joined, a marker of why stays for a minute.
         */
        @Override
        public void close() {
            if (closed) return;
            closed = true;
            g.leave();
        }
    }

    /** A node of a hosted section in this JVM: who joined, the node once built, the section's end. Guarded by itself. */
    private static final class Gathering {
        final String key;
        final Layout layout;
        final int node, t;
        final HybridSettings settings;
        private final boolean[] joined, gaveUp;
        private int joinedCount, left;
        private Node built;
        private String aborted;
        private boolean ended;
        private FatalException failure;

        Gathering(String key, Layout layout, int node, HybridSettings settings) {
            this.key = key;
            this.layout = layout;
            this.node = node;
            this.t = layout.threads(node);
            this.settings = settings;
            this.joined = new boolean[t];
            this.gaveUp = new boolean[t];
        }

        /** Called inside the registry's compute: a second join of one process is refused. */
        synchronized void join(int local) {
            if (joined[local]) {
                throw new IllegalStateException("HostedNode " + key + ": pid " + layout.pid(node, local) + " joined twice");
            }
            joined[local] = true;
            joinedCount++;
            notifyAll();
        }

        synchronized void awaitJoined(long nanos) {
            waitUntil(() -> joinedCount == t, nanos);
            if (joinedCount < t) {
                StringBuilder missing = new StringBuilder();
                for (int l = 0; l < t; l++) if (!joined[l]) missing.append(missing.isEmpty() ? "" : ", ").append(layout.pid(node, l));
                throw new FatalException("HostedNode " + key + ": only " + joinedCount + " of node " + node + "'s " + t
                        + " processes (" + layout.pidsOf(node) + ") joined in this JVM within " + nanos / 1_000_000
                        + " ms; missing pids " + missing + " (the processes of one node must be threads of one JVM)", null);
            }
        }

        synchronized void publish(Node n) {
            built = n;
            if (aborted != null) n.fail(aborted, null);
            for (int l = 0; l < t; l++) {
                if (gaveUp[l]) { // it will not run: it neither waits in a sync nor is waited for
                    n.fail(n.who(l) + " gave up waiting for its node to start", null);
                    n.exit(l, null);
                }
            }
            notifyAll();
        }

        /** @return the node, or null if the section ended before the leader built it */
        synchronized Node awaitNode(int local, long nanos) {
            if (!waitUntil(() -> built != null || ended, nanos)) {
                gaveUp[local] = true;
                throw new FatalException("HostedNode " + key + ": pid " + layout.pid(node, local) + " waited " + nanos / 1_000_000
                        + " ms for its node's leader (pid " + layout.pid(node, 0) + ") to start the node", null);
            }
            return built;
        }

        synchronized void end(FatalException f) {
            ended = true;
            failure = built == null && f == null
                    ? new FatalException("HostedNode " + key + ": the section over the nodes ended before node " + node + " started", null)
                    : f;
            notifyAll();
        }

        /** Waits (without a deadline: the leader's section ends or fails by the node level's own deadlines) for the end. */
        synchronized FatalException awaitEnd() {
            waitUntil(() -> ended, Long.MAX_VALUE);
            return failure;
        }

        /**
         * Waits on this gathering's monitor (held by the caller) until {@code done} or {@code nanos}
         * have passed; an interrupt does not end the wait and is kept for the caller.
         *
         * @return whether {@code done} holds
         */
        private boolean waitUntil(BooleanSupplier done, long nanos) {
            long deadline = nanos == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + nanos;
            boolean interrupted = false;
            while (!done.getAsBoolean()) {
                long left = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (left <= 0) break;
                try {
                    if (left == Long.MAX_VALUE) wait();
                    else wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
            return done.getAsBoolean();
        }

        synchronized void abort(String reason) {
            if (aborted == null) aborted = reason;
            if (built != null) built.fail(reason, null);
        }

        /**
         * Inside the registry's compute of this key: the last member that joined removes the node
         * (members that leave before the section ended gave up on the leader, or never ran; a
         * leader that joins later fails on the marker, or by its own arrival time). Leaves a
         * marker when some member never joined.
         */
        void leave() {
            GATHERINGS.compute(key, (k, g) -> {
                synchronized (this) {
                    if (++left < joinedCount || g != this) return g;
                    if (joinedCount < t) {
                        String why = failure != null ? failure.getMessage()
                                : "its members " + joinedPids() + " gave up before the leader built the node";
                        ENDED.put(key, new Ended(why, System.nanoTime() + LATE_JOIN_MARKER.toNanos()));
                    }
                    return null;
                }
            });
        }

        private String joinedPids() {
            StringBuilder b = new StringBuilder();
            for (int l = 0; l < t; l++) if (joined[l]) b.append(b.isEmpty() ? "" : ", ").append(layout.pid(node, l));
            return b.toString();
        }
    }
}
