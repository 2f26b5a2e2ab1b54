package org.lpf4j.tools;

import org.lpf4j.Machine;
import org.lpf4j.spi.kit.WireCounts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;

/**
 * One process's superstep records for {@code lpf run --profile}: per superstep the compute time
 * before its sync and the time inside the sync, and per superstep and peer the puts and gets this
 * process queued to or from that peer (messages and bytes). The side that is not local (bytes
 * others put into this process, bytes others get from it) is derived when every process's log is
 * merged ({@link ProfileRecords}).
 *
 * <p>Cost: O(1) per put or get (four array increments into per-peer counters of this superstep),
 * O(peers touched) per sync; primitive arrays grown by doubling, so amortised no allocation per
 * call. Memory: 4·p longs of counters plus what was recorded. Used by one thread (the process's).
 *
 * <p>The file it writes ({@link #write}) is a private format read only by
 * {@link ProfileRecords#read}: lines {@code process,pid,nprocs}, {@code machine,size,g,l},
 * {@code step,s,computeNanos,waitNanos}, {@code pair,s,peer,putMsgs,putBytes,getMsgs,getBytes} and, where the
 * engine counts what it sends, {@code sent,s,} then {@link WireCounts}'s counters, the connections and the connections by path.
 */
final class SuperstepLog {
    private final int pid;
    private final int nprocs;
    /** This superstep's counters per peer: puts to it and gets from it, messages and bytes. */
    private final long[] putMsgs, putBytes, getMsgs, getBytes;
    /** The peers with non-zero counters in this superstep, in first-touch order. */
    private int[] touched = new int[8];
    private int touchedCount;

    private long[] compute = new long[16];
    private long[] wait = new long[16];
    /** Per superstep: what the process sent to other JVMs in its sync ({@link WireCounts}'s counters, then connections); -1: not counted. */
    private long[][] sent = new long[WIDTH][16];
    private int steps;
    /** Counters of {@link #sent}: {@link WireCounts#COUNTERS}, the connections, then the connections by path ({@link WireCounts#PATHS}). */
    static final int WIDTH = WireCounts.COUNTERS + 1 + WireCounts.PATHS;

    /** Flushed pair records: superstep, peer, then the four counters. */
    private int[] pairStep = new int[16];
    private int[] pairPeer = new int[16];
    private long[][] pairCounts = new long[4][16];
    private int pairs;

    /**
     * @param pid    this process
     * @param nprocs processes of the section
     */
    SuperstepLog(int pid, int nprocs) {
        this.pid = pid;
        this.nprocs = nprocs;
        putMsgs = new long[nprocs];
        putBytes = new long[nprocs];
        getMsgs = new long[nprocs];
        getBytes = new long[nprocs];
    }

    /** Notes a put of {@code size} bytes to {@code dst} queued in the current superstep. */
    void put(int dst, long size) {
        if (dst < 0 || dst >= nprocs) return; // the engine rejects it; nothing was queued
        touch(dst);
        putMsgs[dst]++;
        putBytes[dst] += size;
    }

    /** Notes a get of {@code size} bytes from {@code src} queued in the current superstep. */
    void get(int src, long size) {
        if (src < 0 || src >= nprocs) return;
        touch(src);
        getMsgs[src]++;
        getBytes[src] += size;
    }

    private void touch(int peer) {
        if (putMsgs[peer] != 0 || getMsgs[peer] != 0) return;
        if (touchedCount == touched.length) touched = Arrays.copyOf(touched, 2 * touchedCount);
        touched[touchedCount++] = peer;
    }

    /**
     * Ends the current superstep: its compute and wait times, and what was queued in it.
     *
     * @param computeNanos time from the end of the previous sync (or the section's start) to this sync
     * @param waitNanos    time inside this sync ({@code 0} for the part after the last sync)
     */
    void endStep(long computeNanos, long waitNanos) { endStep(computeNanos, waitNanos, null); }

    /**
     * {@link #endStep(long, long)}, with what the process sent in the sync.
     *
     * @param sentInSync {@link #WIDTH} counters (see {@link #sent}), or null when the engine counts none
     */
    void endStep(long computeNanos, long waitNanos, long[] sentInSync) {
        if (steps == compute.length) {
            compute = Arrays.copyOf(compute, 2 * steps);
            wait = Arrays.copyOf(wait, 2 * steps);
            for (int c = 0; c < WIDTH; c++) sent[c] = Arrays.copyOf(sent[c], 2 * steps);
        }
        compute[steps] = computeNanos;
        wait[steps] = waitNanos;
        for (int c = 0; c < WIDTH; c++) sent[c][steps] = sentInSync == null ? -1 : sentInSync[c];
        for (int i = 0; i < touchedCount; i++) {
            int peer = touched[i];
            if (pairs == pairStep.length) growPairs();
            pairStep[pairs] = steps;
            pairPeer[pairs] = peer;
            pairCounts[0][pairs] = putMsgs[peer];
            pairCounts[1][pairs] = putBytes[peer];
            pairCounts[2][pairs] = getMsgs[peer];
            pairCounts[3][pairs] = getBytes[peer];
            pairs++;
            putMsgs[peer] = putBytes[peer] = getMsgs[peer] = getBytes[peer] = 0;
        }
        touchedCount = 0;
        steps++;
    }

    private void growPairs() {
        pairStep = Arrays.copyOf(pairStep, 2 * pairs);
        pairPeer = Arrays.copyOf(pairPeer, 2 * pairs);
        for (int c = 0; c < 4; c++) pairCounts[c] = Arrays.copyOf(pairCounts[c], 2 * pairs);
    }

    /** @return the supersteps ended so far */
    int steps() { return steps; }

    /**
     * Writes the records to {@code file}, first to a temporary name beside it and then renamed, so
     * a reader never sees a partial file.
     *
     * @param machine the section's g and l, or null if they could not be had
     * @throws UncheckedIOException if the file cannot be written
     */
    void write(Path file, Machine machine) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp)) {
            w.write("process," + pid + "," + nprocs + "\n");
            if (machine != null) {
                long[] sizes = machine.messageSizes();
                for (long size : sizes) w.write("machine," + size + "," + machine.g(size) + "," + machine.l(size) + "\n");
            }
            for (int s = 0; s < steps; s++) w.write("step," + s + "," + compute[s] + "," + wait[s] + "\n");
            for (int s = 0; s < steps; s++) {
                if (sent[0][s] < 0) continue; // not counted
                StringBuilder b = new StringBuilder("sent,").append(s);
                for (int c = 0; c < WIDTH; c++) b.append(',').append(sent[c][s]);
                w.write(b.append('\n').toString());
            }
            for (int i = 0; i < pairs; i++) {
                w.write("pair," + pairStep[i] + "," + pairPeer[i] + "," + pairCounts[0][i] + "," + pairCounts[1][i] + ","
                        + pairCounts[2][i] + "," + pairCounts[3][i] + "\n");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("lpf run --profile: cannot write " + tmp + ": " + e.getMessage(), e);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("lpf run --profile: cannot rename " + tmp + " to " + file + ": " + e.getMessage(), e);
        }
    }
}
