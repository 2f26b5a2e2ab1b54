package org.lpf4j.engine.net;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;
import org.lpf4j.spi.BootModule;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.ForwardingContext;
import org.lpf4j.superstep.ProtocolSettings;
import org.lpf4j.superstep.Shipment;
import org.lpf4j.superstep.WholeJobProbe;
import org.lpf4j.superstep.Transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.Objects;

/**
 * The net engine in one JVM of a job: started once by {@code Lpf.root()}. It opens the selected
 * boot module's session (rank, size, and a PMIx-style exchange), binds the mesh's listening
 * socket ({@link NetEngine#BIND}), and in one fence publishes its address and the start-up
 * agreement (the modules chosen, the protocol's settings); rank 0 also publishes a fresh random
 * key and job id, which every connection of the mesh then proves. Then the mesh connects and the
 * listening socket closes.
 *
 * <p>Rank 0 returns the root context: its {@code exec(p)} sends every other member of the section
 * an {@code EXEC} command (the serialized SPMD function and symbols, and the section's number) and
 * runs pid 0 itself. The other ranks stay inside {@code Lpf.root()}, waiting for commands on the
 * mesh (blocking in {@code select}: idle ranks leave the cores free) until {@code STOP}, when rank
 * 0's JVM ends; then they close the mesh and exit with status 0. If rank 0's JVM dies, they see
 * its connection end and exit with status 1.
 */
final class NetRuntime extends org.lpf4j.superstep.JobRuntime {
    static final long EXEC = 1, STOP = 2;
    private static NetRuntime instance;

    final int rank, size;
    private final Mesh mesh;
    private final NetSections sections;
    private final String bootModule;
    private boolean stopped;
    private volatile boolean inSection;

    private NetRuntime() {
        super("net");
        BootModule boot = Components.installed().select(Framework.BOOT, BootModule.class);
        this.bootModule = boot.name();
        ProtocolSettings protocol = NetSections.protocolSettings();
        String agreement = Rendezvous.agreement(protocol);
        Mesh connected = null;
        int r, n;
        try (BootSession session = boot.openSession()) {
            r = session.rank();
            n = session.size();
            if (n > 1) connected = Rendezvous.connect(session, agreement, InetAddress.getByName(NetEngine.BIND.get().strip()), null);
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
        this.sections = new NetSections(protocol, "net/" + host + "/" + n, NetEngine.PROBE_MILLIS.get() * 1_000_000L);
    }

    /** @return the runtime of this JVM, joining the job on first use */
    static synchronized NetRuntime get() {
        if (instance == null) instance = new NetRuntime();
        return instance;
    }

    /** Rank 0: releases the other ranks (they exit) and closes the mesh. */
    static void shutdown() {
        NetRuntime r;
        synchronized (NetRuntime.class) {
            r = instance;
        }
        shutdownAtRoot(r);
    }

    @Override protected int rank() { return rank; }

    @Override
    protected Context rootContext() {
        NetContext self = new NetContext(null, new NetTransport(null, 0, 1), 0, Args.NONE, CrossJvmObjects.forCurrentThread(),
                sections, 1);
        return new ForwardingContext(self) {
            @Override
            public void exec(int p, Spmd spmd, Args args) {
                Objects.requireNonNull(spmd, "exec: spmd");
                Objects.requireNonNull(args, "exec: args");
                if (p < 1) throw new IllegalArgumentException("exec(p=" + p + ") at the root: p must be at least 1");
                NetRuntime.this.exec(p, spmd, args);
            }

            @Override
            public Machine probe() { return WholeJobProbe.probe("net", size, (n, spmd) -> NetRuntime.this.exec(n, spmd, Args.NONE)); }

            @Override
            public String toString() { return "NetRootContext[rank 0 of " + size + ", boot " + bootModule + "]"; }
        };
    }

    // ---- rank 0 ----

    synchronized void exec(int p, Spmd spmd, Args args) {
        if (stopped) throw new IllegalStateException("exec(p=" + p + "): the net engine has been shut down");
        int n = Math.min(p, size);
        if (n == 1) {
            FatalException f = NetSections.runAlone(spmd, args, sections, "exec(p=1)");
            if (f != null) throw f;
            return;
        }
        byte[] shipment = Shipment.ship(p, spmd, args, "net");
        int section = mesh.nextSection();
        inSection = true;
        try {
            for (int r = 1; r < n; r++) command(r, EXEC, n, section, shipment);
            FatalException f = sections.run(mesh, section, n, spmd, args, "exec(p=" + n + ")", NetSections.share(size, n, 0));
            if (f != null) throw f;
        } finally {
            inSection = false;
        }
    }

    /** A command: kind, section size, section number, then the payload; one frame on the control channel. */
    private void command(int dest, long kind, int n, int section, byte[] payload) {
        MemorySegment m = MemorySegment.ofArray(new byte[24 + payload.length]);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, kind);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, n);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, section);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, m, 24, payload.length);
        int[] pending = new int[1];
        mesh.send(Frame.CONTROL, 0, m, 0, m.byteSize(), dest, pending, 0);
        mesh.await(pending, 0, "a command to rank " + dest);
    }

    /**
     * Rank 0's JVM is ending: release the other ranks and close the mesh. If it ends in the middle
     * of a section (System.exit inside an SPMD function), the mesh is in use by that section's
     * thread: nothing is sent, and the others see rank 0's connections end.
     */
    @Override
    protected void stop() {
        if (inSection) return;
        synchronized (this) {
            if (stopped) return;
            stopped = true;
            if (mesh == null) return;
            try {
                mesh.activate(0, size);
                for (int r = 1; r < size; r++) command(r, STOP, 0, 0, new byte[0]);
            } catch (RuntimeException e) {
                System.err.println("lpf4j net: rank 0 could not tell every rank to stop: " + e.getMessage());
            } finally {
                mesh.close();
            }
        }
    }

    // ---- ranks 1.. ----

    /** Waits for commands from rank 0 until STOP, then closes the mesh and exits the JVM. */
    @Override
    protected void serve() {
        while (true) {
            byte[] c;
            try {
                mesh.activate(0, size);
                c = mesh.receiveWhole(Frame.CONTROL, 0, "a command of rank 0");
            } catch (Transport.Stopped e) {
                System.err.println("lpf4j net: rank " + rank + " leaves the job: " + e.getMessage());
                mesh.close();
                System.exit(1);
                return;
            }
            MemorySegment m = MemorySegment.ofArray(c);
            long kind = m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            int n = (int) m.get(ValueLayout.JAVA_LONG_UNALIGNED, 8), section = (int) m.get(ValueLayout.JAVA_LONG_UNALIGNED, 16);
            if (kind == STOP) {
                mesh.close();
                System.exit(0);
            } else if (kind == EXEC) {
                runShipped(n, section, m.asSlice(24).toArray(ValueLayout.JAVA_BYTE));
            }
        }
    }

    private void runShipped(int n, int section, byte[] payload) {
        Shipment s = Shipment.unship(payload, rank);
        mesh.resumeSectionsAt(section);
        sections.run(mesh, section, n, s.spmd(), s.args(), "exec(p=" + n + ")", NetSections.share(size, n, rank));
    }
}
