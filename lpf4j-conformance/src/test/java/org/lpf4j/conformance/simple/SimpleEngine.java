package org.lpf4j.conformance.simple;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Machine;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.Spmd;
import org.lpf4j.SyncAttr;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.Parameters;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;
import org.lpf4j.spi.kit.ProbeHarness;
import org.lpf4j.spi.kit.RequestChecks;
import org.lpf4j.spi.kit.SlotRegister;
import org.lpf4j.spi.kit.StagedCapacity;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A deliberately simple engine written only against the engine kit and the public API: the proof
 * that the seam suffices. Every process is a thread; every collective step (sync, rehook, the
 * return from the SPMD function) is a meeting under one lock per section, and the last process
 * to arrive at a sync executes every queued request of every process, one after another. A
 * process arriving with another kind of step than the others fails the section. Slow on purpose
 * (a monitor wait per sync, objects per request); priority 1, so it is never chosen by default.
 */
public final class SimpleEngine implements EngineProvider {
    private Parameters.Parameter<Integer> procs;

    /** For ServiceLoader. */
    public SimpleEngine() {}

    @Override public String name() { return "simple"; }
    @Override public Version frameworkApiVersion() { return new Version(1, 0, 0); }
    @Override public Version version() { return new Version(0, 1, 0); }
    @Override public Query query() { return Query.run(1); }
    @Override public int machineSize() { return procs.get(); }

    @Override
    public void open(ModuleParameters parameters) {
        Parameters.Parameter<Integer> own = parameters.integer("procs", 8, 1, 1024, "machine size of the simple engine");
        if (procs == null || parameters.registry() == ParameterRegistry.global()) procs = own;
    }

    @Override
    public Map<String, String> settingsForProcesses(int n) {
        return n <= machineSize() ? Map.of() : Map.of(procs.key(), Integer.toString(n));
    }

    @Override public Context root() { return new Process(new Section(1), 0, machineSize(), Args.NONE, true); }

    private enum Step { SYNC, REHOOK, EXIT }

    /** A queued request: a put (local = source) or a get (local = destination). */
    private record Request(boolean put, MemorySegment local, long localOffset, int remotePid, int slot,
                           long remoteOffset, long size, MsgAttr attr) {}

    /** One SPMD section: its processes and the meeting they are in, all guarded by {@code this}. */
    private static final class Section {
        final int p;
        final Process[] members;
        long meeting;
        int arrived;
        Step step;
        Section child;
        String failure;
        Throwable cause;
        final List<Throwable> otherCauses = new ArrayList<>();

        Section(int p) {
            this.p = p;
            this.members = new Process[p];
        }

        synchronized void fail(String why, Throwable thrown) {
            if (thrown != null && !(thrown instanceof SectionFailure)) {
                if (cause == null) cause = thrown; else if (thrown != cause) otherCauses.add(thrown);
            }
            if (failure == null) failure = why;
            notifyAll();
        }

        FatalException fatal(int pid) {
            return new SectionFailure("pid " + pid + " of " + p + ": the section failed: " + failure);
        }

        /** Arrives at the next meeting; returns when everyone has, or throws if the section failed first. */
        synchronized void meet(int pid, Step mine) {
            if (failure != null) throw fatal(pid);
            if (arrived == 0) step = mine;
            else if (step != mine) fail(mine == Step.EXIT || step == Step.EXIT
                    ? "a process returned from its SPMD function while another one still synchronises"
                    : "pid " + pid + " called " + mine + " while another process called " + step + " (both are collective)", null);
            if (failure != null) throw fatal(pid);
            long at = meeting;
            if (++arrived == p) {
                arrived = 0;
                try {
                    if (mine == Step.SYNC) for (Process from : members) from.execute(members);
                    if (mine == Step.REHOOK) child = new Section(p);
                } catch (RuntimeException e) {
                    fail("could not execute a request: " + e, e);
                    throw fatal(pid);
                }
                meeting++;
                notifyAll();
            }
            while (meeting == at) {
                if (failure != null) throw fatal(pid);
                try {
                    wait();
                } catch (InterruptedException e) {
                    fail("pid " + pid + " was interrupted", e);
                }
            }
        }

        /** Runs process {@code pid}'s function, then waits until every process has returned (or the section failed). */
        void run(Process process, Spmd spmd) {
            members[process.pid] = process;
            try {
                spmd.run(process);
                process.sync(Step.EXIT);
            } catch (Throwable t) {
                fail("pid " + process.pid + " threw " + t, t);
            }
        }

        synchronized FatalException outcome(String call) {
            if (failure == null) return null;
            FatalException e = new FatalException(call + " failed: " + failure, cause);
            otherCauses.forEach(e::addSuppressed);
            return e;
        }
    }

    /** The FatalException an engine raises itself: never recorded as a cause. */
    private static final class SectionFailure extends FatalException {
        private static final long serialVersionUID = 1L;
        SectionFailure(String message) { super(message, null); }
    }

    /** One process's context. */
    private static final class Process implements Context {
        final Section section;
        final int pid;
        final int freeP;
        final Args args;
        final boolean root;
        final SlotRegister register = new SlotRegister();
        final StagedCapacity queueCapacity = new StagedCapacity("resizeMessageQueue");
        final List<Request> requests = new ArrayList<>();
        long superstep;

        Process(Section section, int pid, int freeP, Args args, boolean root) {
            this.section = section;
            this.pid = pid;
            this.freeP = freeP;
            this.args = args;
            this.root = root;
            section.members[pid] = this;
        }

        @Override public int pid() { return pid; }
        @Override public int nprocs() { return section.p; }
        @Override public Args args() { return args; }
        @Override public long superstep() { return superstep; }
        @Override public boolean supports(org.lpf4j.Capability c) { return c == org.lpf4j.Capability.COMBINING_PUTS; }

        @Override
        public void put(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset, long size, MsgAttr attr) {
            if (requests.size() >= queueCapacity.current() && queueCapacity.grows()) { // lpf.capacity=grow; the list grows itself
                queueCapacity.grow(queueCapacity.grownFor(requests.size(), Integer.MAX_VALUE - 16), queueCapacity.pending());
            }
            MemorySegment src = RequestChecks.checkPut(register, superstep, pid, section.p, srcSlot, srcOffset, dstPid,
                    dstSlot, dstOffset, size, attr, requests.size(), queueCapacity.current(), true);
            requests.add(new Request(true, src, srcOffset, dstPid, dstSlot.id(), dstOffset, size, attr));
        }

        @Override
        public void get(int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset, long size, MsgAttr attr) {
            if (requests.size() >= queueCapacity.current() && queueCapacity.grows()) { // lpf.capacity=grow; the list grows itself
                queueCapacity.grow(queueCapacity.grownFor(requests.size(), Integer.MAX_VALUE - 16), queueCapacity.pending());
            }
            MemorySegment dst = RequestChecks.checkGet(register, superstep, pid, section.p, srcPid, srcSlot, srcOffset,
                    dstSlot, dstOffset, size, attr, requests.size(), queueCapacity.current());
            requests.add(new Request(false, dst, dstOffset, srcPid, srcSlot.id(), srcOffset, size, attr));
        }

        /** Executes this process's requests (called under the section's lock by the last arriver). */
        void execute(Process[] members) {
            for (Request r : requests) {
                if (r.size == 0) continue;
                MemorySegment remote = members[r.remotePid].register.globalSegment(r.slot);
                if (r.put && !RequestChecks.remotePutFits(remote, r.remoteOffset, r.size)) {
                    throw RequestChecks.remotePutTooFar(pid, r.remotePid, r.slot, r.remoteOffset, r.size, remote);
                }
                if (!r.put && !RequestChecks.remoteGetFits(remote, r.remoteOffset, r.size)) {
                    throw RequestChecks.remoteGetTooFar(pid, r.remotePid, r.slot, r.remoteOffset, r.size, remote);
                }
                if (!r.put) MemorySegment.copy(remote, r.remoteOffset, r.local, r.localOffset, r.size);
                else if (r.attr == MsgAttr.DEFAULT) MemorySegment.copy(r.local, r.localOffset, remote, r.remoteOffset, r.size);
                else RequestChecks.combine(r.attr, r.local, r.localOffset, remote, r.remoteOffset, r.size);
            }
        }

        @Override
        public void sync(SyncAttr attr) {
            Objects.requireNonNull(attr, "sync: attr");
            sync(Step.SYNC);
        }

        void sync(Step step) {
            section.meet(pid, step);
            requests.clear();
            superstep++;
            register.capacity().applyAtSync();
            queueCapacity.applyAtSync();
        }

        @Override
        public Memslot registerGlobal(MemorySegment segment) {
            return register.registerGlobalShared(segment, superstep, pid, section.p);
        }

        @Override
        public Memslot registerLocal(MemorySegment segment) {
            return register.registerLocalShared(segment, pid, section.p);
        }

        @Override public void deregister(Memslot slot) { register.deregister(slot, pid, superstep); }
        @Override public void resizeMemoryRegister(long maxRegs) { register.resize(pid, maxRegs); }

        @Override
        public void resizeMessageQueue(long maxMsgs) {
            queueCapacity.stage(queueCapacity.entries(pid, maxMsgs, 64, Integer.MAX_VALUE - 16));
        }

        @Override
        public Machine probe() {
            return ProbeHarness.machine("simple", root ? freeP : section.p, freeP, 100_000_000L,
                    (p, spmd) -> exec(p, p, spmd, Args.NONE));
        }

        @Override
        public void exec(int p, Spmd spmd, Args args) {
            RequestChecks.checkExec(pid, p, spmd, args);
            exec(Math.min(p, freeP), freeP, spmd, args);
        }

        /** A new section of p threads (pid 0 on this one) sharing {@code processors}. */
        private static void exec(int p, int processors, Spmd spmd, Args args) {
            Section s = new Section(p);
            Process[] ps = new Process[p];
            for (int i = 0; i < p; i++) {
                ps[i] = new Process(s, i, processors / p + (i < processors % p ? 1 : 0), i == 0 ? args : args.withoutIo(), false);
            }
            List<Thread> threads = new ArrayList<>();
            for (int i = 1; i < p; i++) {
                Process process = ps[i];
                Thread t = new Thread(() -> s.run(process, spmd), "lpf-simple-pid" + i);
                t.setDaemon(true);
                t.start();
                threads.add(t);
            }
            s.run(ps[0], spmd);
            for (Thread t : threads) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new FatalException("exec(p=" + p + "): interrupted", e);
                }
            }
            FatalException failure = s.outcome("exec(p=" + p + ")");
            if (failure != null) throw failure;
        }

        @Override
        public void rehook(Spmd spmd, Args args) {
            RequestChecks.checkRehook(spmd, args);
            section.meet(pid, Step.REHOOK);
            Section child;
            synchronized (section) { child = section.child; }
            child.run(new Process(child, pid, freeP, args, false), spmd);
            FatalException failure = child.outcome("rehook");
            if (failure != null) {
                section.fail("a rehooked section failed: " + failure.getMessage(), failure.getCause());
                throw failure;
            }
        }

        @Override public String toString() { return "SimpleProcess[pid " + pid + " of " + section.p + "]"; }
    }
}
