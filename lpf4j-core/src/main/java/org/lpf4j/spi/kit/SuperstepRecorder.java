package org.lpf4j.spi.kit;

import jdk.jfr.FlightRecorder;

/**
 * Emits the JFR events of one process: a {@link SuperstepEvent} per sync and a
 * {@link SectionEvent} per section. One instance per process context, used by that process's
 * thread only. Engines only.
 *
 * <p>At a sync an engine calls {@link #begin()} first; only if it returns {@code true} (a
 * recording has {@code org.lpf4j.Superstep} enabled) does it count what it queued
 * ({@link #out}) and, at the end, call {@link #commit}. The recorder keeps one event object and
 * reuses it, so a sync allocates nothing whether or not a recording is on.
 *
 * <p>Cost with no recording: {@link #begin()} reads whether Flight Recorder has been started in
 * this JVM at all and, if it has, asks the event whether it is enabled; nothing else runs. No
 * event class is touched before Flight Recorder starts, because the first use of one
 * initialises the JDK's event metadata, a one-time startup cost (see docs/performance.md) that a
 * JVM which never records should not pay.
 */
public final class SuperstepRecorder {
    private final String engine;
    /** Created at the first sync after Flight Recorder started, then reused. */
    private SuperstepEvent event;
    private boolean began;

    /** @param engine the engine's name as the events show it (e.g. {@code threads}) */
    public SuperstepRecorder(String engine) {
        this.engine = engine;
    }

    /**
     * Starts timing a sync if a recording wants superstep events.
     *
     * @return whether the engine should count its requests and {@link #commit} at the end
     */
    public boolean begin() {
        if (!FlightRecorder.isInitialized()) return began = false;
        SuperstepEvent e = event;
        if (e == null) event = e = new SuperstepEvent();
        began = e.isEnabled();
        if (began) {
            e.begin();
            e.messagesIn = -1;
            e.bytesIn = -1;
            e.dataMessages = e.payloadBytes = e.headerBytes = e.metaMessages = e.metaBytes = e.collectives = -1;
            e.connections = e.connectionsInJvm = e.connectionsShm = e.connectionsTcp = -1;
        }
        return began;
    }

    /** Records what this process queued in the superstep; only after {@link #begin()} returned true. */
    public void out(long messages, long bytes) {
        event.messagesOut = messages;
        event.bytesOut = bytes;
    }

    /** Records the puts written into this process's memory; only after {@link #begin()} returned true. */
    public void in(long messages, long bytes) {
        event.messagesIn = messages;
        event.bytesIn = bytes;
    }

    /**
     * Records what the process sent to other JVMs in the sync: {@code now} less {@code before}
     * (what {@link WireCounts#read} gave at the sync's start), and the connections open now (and by path); only
     * after {@link #begin()} returned true. Allocates nothing.
     */
    public void wire(long[] before, WireCounts now) {
        SuperstepEvent e = event;
        e.dataMessages = now.get(WireCounts.DATA_MESSAGES) - before[WireCounts.DATA_MESSAGES];
        e.payloadBytes = now.get(WireCounts.PAYLOAD_BYTES) - before[WireCounts.PAYLOAD_BYTES];
        e.headerBytes = now.get(WireCounts.HEADER_BYTES) - before[WireCounts.HEADER_BYTES];
        e.metaMessages = now.metaCounted() ? now.get(WireCounts.META_MESSAGES) - before[WireCounts.META_MESSAGES] : -1;
        e.metaBytes = now.metaCounted() ? now.get(WireCounts.META_BYTES) - before[WireCounts.META_BYTES] : -1;
        e.collectives = now.get(WireCounts.COLLECTIVES) - before[WireCounts.COLLECTIVES];
        e.connections = now.connections();
        e.connectionsInJvm = now.connections(WireCounts.IN_JVM);
        e.connectionsShm = now.connections(WireCounts.SHARED_MEMORY);
        e.connectionsTcp = now.connections(WireCounts.TCP);
    }

    /**
     * Ends the sync begun by {@link #begin()} and writes the event if the recording's threshold
     * lets it through; does nothing if {@link #begin()} returned false.
     *
     * @param superstep the superstep the sync ended (the count of syncs before it)
     */
    public void commit(int pid, int nprocs, long superstep) {
        if (!began) return;
        began = false;
        event.end();
        if (event.shouldCommit()) {
            event.engine = engine;
            event.pid = pid;
            event.nprocs = nprocs;
            event.superstep = superstep;
            event.commit();
        }
    }

    /**
     * Starts one process's part of a section.
     *
     * @return the event to hand to {@link #endSection}, or {@code null} when no recording wants it
     */
    public static SectionEvent beginSection() {
        if (!FlightRecorder.isInitialized()) return null;
        SectionEvent e = new SectionEvent();
        if (!e.isEnabled()) return null;
        e.begin();
        return e;
    }

    /**
     * Ends a section begun by {@link #beginSection}; {@code section} may be {@code null}.
     *
     * @param call the engine's name for the call ({@code exec}, {@code hook}, {@code rehook}); anything
     *             from a parenthesis on (e.g. {@code exec(p=4)}) is dropped
     */
    public static void endSection(SectionEvent section, String engine, String call, int pid, int nprocs,
                                  long supersteps, boolean failed) {
        if (section == null) return;
        section.end();
        if (section.shouldCommit()) {
            section.engine = engine;
            int paren = call.indexOf('(');
            section.call = paren < 0 ? call : call.substring(0, paren); // "exec(p=4)" -> "exec"
            section.pid = pid;
            section.nprocs = nprocs;
            section.supersteps = supersteps;
            section.failed = failed;
            section.commit();
        }
    }

    /** Bytes of the requests in {@code list}: what an engine that queues in a {@link RequestList} reports out. */
    public static long bytes(RequestList list) {
        long sum = 0;
        for (int i = 0; i < list.puts; i++) sum += list.putSize[i];
        for (int i = 0; i < list.gets; i++) sum += list.getSize[i];
        return sum;
    }
}
