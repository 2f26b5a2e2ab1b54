package org.lpf4j.engine.net;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;
import org.lpf4j.spi.BootModule;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.superstep.ProtocolSettings;
import org.lpf4j.superstep.JobRuntime;
import org.lpf4j.superstep.Transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The net engine in one JVM of a job: started once by {@code Lpf.root()}. It opens the selected
 * boot module's session (rank, size, and a PMIx-style exchange), binds the mesh's listening
 * socket ({@link NetParameters#BIND}), and in one fence publishes its address and the start-up
 * agreement (the modules chosen, the protocol's settings); rank 0 also publishes a fresh random
 * key and job id, which every connection of the mesh then proves. Connections are made on first
 * use ({@link Connections}); a barrier over the mesh ends the start ({@link Mesh#join}).
 *
 * <p>Rank 0 returns the root context: its {@code exec(p)} sends every other member of the section
 * an {@code EXEC} command (the serialized SPMD function and symbols, and the section's number) and
 * runs pid 0 itself. A command travels down a binomial tree over the ranks it is for (rank r's
 * parent is r less its highest bit; each rank passes it on to its children before it acts on
 * it), so that rank 0 connects to ⌈log2 p⌉ ranks, not p − 1, and a command reaches the last rank
 * in ⌈log2 p⌉ hops. The other ranks stay inside {@code Lpf.root()}, waiting for commands on the
 * mesh (blocking in {@code select}: idle ranks leave the cores free) until {@code STOP}, when rank
 * 0's JVM ends; then they close the mesh and exit with status 0. A waiting rank holds a connection
 * to its parent: if its parent's JVM dies (or any other, whose death notice reaches it), it exits
 * with status 1.
 *
 * <p>With {@code lpf.engine.net.perJvm} = k a JVM holds k runtimes (ranks), each with its own mesh:
 * the JVM's first rank is the one {@code Lpf.root()} joins as, the others serve on daemon threads.
 */
final class NetRuntime extends JobRuntime {
    /** The runtime of this JVM, joining the job on first use. */
    static final Instance<NetRuntime> INSTANCE = new Instance<>(NetRuntime::start);

    final int rank, size;
    private final Mesh mesh;
    private final NetSections sections;
    private final String bootModule;
    /**
     * With several ranks per JVM: counts this JVM's serving ranks down once each has passed the STOP
     * on and closed its mesh; null otherwise. The JVM ends only when it is zero.
     */
    private final CountDownLatch leaving;

    /** For tests: run by a serving rank that got the STOP, before it passes it on to its children. */
    static volatile Runnable beforePassingOnStop;

    /**
     * Joins the job: this JVM's rank, or with {@code lpf.engine.net.perJvm} = k its first of k ranks,
     * the others started on daemon threads of their own that serve rank 0's sections ({@link JvmRanks}).
     */
    private static NetRuntime start() {
        BootModule boot = Components.installed().select(Framework.BOOT, BootModule.class);
        int perJvm = NetParameters.PER_JVM.get();
        if (perJvm == 1) {
            try (BootSession session = boot.openSession()) {
                return new NetRuntime(boot.name(), session, null);
            }
        }
        BootSession jvm = boot.openSession();
        int launched = NetEngineProvider.launchedSize();
        JvmRanks ranks;
        try {
            ranks = new JvmRanks(jvm, perJvm, launched > 0 ? launched : jvm.size() * perJvm);
        } catch (RuntimeException e) {
            jvm.close();
            throw e;
        }
        CountDownLatch leaving = new CountDownLatch(ranks.rank(0) == 0 ? ranks.count() - 1 : ranks.count());
        for (int i = 1; i < ranks.count(); i++) {
            BootSession session = ranks.session(i);
            Thread t = new Thread(() -> {
                NetRuntime runtime;
                try (session) {
                    runtime = new NetRuntime(boot.name(), session, leaving);
                } catch (RuntimeException e) {
                    System.err.println("lpf4j net: rank " + session.rank() + " could not join the job: " + e.getMessage());
                    System.exit(1);
                    return;
                }
                try {
                    runtime.root(); // serves until STOP, then ends the JVM
                } catch (Throwable e) { // as a rank of its own JVM would, it ends the JVM: the job's other JVMs see it gone
                    System.err.print("lpf4j net: rank " + session.rank() + " failed, ending its JVM: ");
                    e.printStackTrace(); // its first line names the error
                    System.exit(1);
                }
            }, "lpf-net-rank-" + ranks.rank(i));
            t.setDaemon(true);
            t.start();
        }
        try (BootSession session = ranks.session(0)) {
            return new NetRuntime(boot.name(), session, leaving);
        }
    }

    private NetRuntime(String bootModule, BootSession session, CountDownLatch leaving) {
        super("net");
        this.bootModule = bootModule;
        this.leaving = leaving;
        ProtocolSettings protocol = NetParameters.PROTOCOL.resolve();
        String agreement = Rendezvous.agreement(protocol);
        Mesh connected = null;
        int r = session.rank(), n = session.size();
        try {
            if (n > 1) connected = Rendezvous.exchange(session, agreement, InetAddress.getByName(NetParameters.BIND.get().strip()), null);
            // The boot is done with: leave it before the barrier. Rank 0's tcp session serves the others
            // until they left, and its close waits for that (up to the boot's fence timeout, 10 s); after
            // the barrier its mesh must make progress meanwhile (a barrier frame of its may still be staged).
            session.close();
            if (connected != null) Rendezvous.join(connected);
        } catch (IOException e) {
            throw new IllegalStateException("lpf4j net: the job's processes could not connect (boot module " + bootModule
                    + "): " + e.getMessage(), e);
        }
        this.rank = r;
        this.size = n;
        this.mesh = connected;
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "localhost";
        }
        this.sections = new NetSections(protocol, "net/" + host + "/" + n, NetParameters.PROBE_MILLIS.get() * 1_000_000L);
    }

    @Override protected int rank() { return rank; }

    @Override protected int size() { return size; }

    @Override
    protected Context selfContext() {
        return new NetContext(null, new NetTransport(null, 0, 1), 0, Args.NONE, CrossJvmObjects.forCurrentThread(), sections, 1);
    }

    @Override
    protected String rootName() { return "NetRootContext[rank 0 of " + size + ", boot " + bootModule + "]"; }

    // ---- job control: the mesh's part ----

    /** A section of rank 0 alone runs without the mesh; others get the mesh's next section number. */
    @Override
    protected int newSection(int n) { return n == 1 ? 0 : mesh.nextSection(); }

    @Override
    protected FatalException runSection(int n, int section, Spmd spmd, Args args, int share) {
        if (n == 1) return NetSections.runAlone(spmd, args, sections, "exec(p=1)");
        mesh.resumeSectionsAt(section); // rank 0 numbered it: its children are numbered alike everywhere
        return sections.run(mesh, section, n, spmd, args, "exec(p=" + n + ")", share);
    }

    /**
     * One frame on the control channel (section 0, the runtime's own traffic), to {@code dest} if
     * it is a child of rank 0 in the command's tree; its parent passes it on to the others.
     */
    @Override
    protected void sendCommand(int dest, byte[] command) {
        if (Integer.bitCount(dest) == 1) send(dest, command);
    }

    private void send(int dest, byte[] command) {
        mesh.activate(0, size);
        int[] pending = new int[1];
        mesh.send(Frame.CONTROL, 0, MemorySegment.ofArray(command), 0, command.length, dest, pending, 0);
        mesh.await(pending, 0, "a command to rank " + dest);
    }

    /** @return the ranks a command is for, 0 .. n - 1: a section's for {@code EXEC}, every rank's otherwise */
    private int commandRanks(byte[] command) {
        return kind(command) == EXEC ? ranks(command) : size;
    }

    /**
     * The next command, from this rank's parent in the tree, passed on to this rank's children.
     * If a JVM died (its parent's, or one whose death notice came), this rank leaves with status 1.
     */
    @Override
    protected byte[] receiveCommand() {
        try {
            mesh.activate(0, size);
            int high = Integer.highestOneBit(rank), parent = rank - high;
            mesh.connect(parent);
            byte[] c = mesh.receiveWhole(Frame.CONTROL, parent, "a command of rank " + parent);
            Runnable hook = beforePassingOnStop;
            if (hook != null && kind(c) == STOP) hook.run();
            int ranks = commandRanks(c);
            for (long child = rank + 2L * high; child < ranks; child += child - rank) send((int) child, c);
            return c;
        } catch (Transport.Stopped e) {
            System.err.println("lpf4j net: rank " + rank + " leaves the job: " + e.getMessage());
            mesh.close();
            System.exit(1);
            throw e;
        }
    }

    /**
     * Rank 0's JVM is ending. With several ranks in it, it waits until its serving ranks have passed
     * the STOP on to their children (in other JVMs too) and closed their meshes: ending before that
     * would leave those children to find this JVM gone without a goodbye, and fail the job.
     */
    @Override
    protected void release(boolean othersTold) {
        if (mesh != null) mesh.close();
        if (othersTold) awaitTheJvmsRanks();
    }

    /**
     * STOP came, and this rank passed it on. A JVM of several ranks exits (when this returns) only
     * after each of its serving ranks has done so and closed its mesh: one JVM ending early would cut
     * the connections of ranks still passing the STOP on, and of those still waiting for it.
     */
    @Override
    protected void leave() {
        mesh.close();
        if (leaving != null) leaving.countDown();
        awaitTheJvmsRanks();
    }

    private void awaitTheJvmsRanks() {
        if (leaving == null) return;
        try {
            if (!leaving.await(NetParameters.SETUP_MILLIS.get(), TimeUnit.MILLISECONDS)) {
                System.err.println("lpf4j net: rank " + rank + " ends its JVM with " + leaving.getCount()
                        + " of its ranks not yet gone (lpf.engine.net.setupMillis " + NetParameters.SETUP_MILLIS.get() + " ms passed)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
