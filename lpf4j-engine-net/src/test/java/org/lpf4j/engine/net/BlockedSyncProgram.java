package org.lpf4j.engine.net;

import org.lpf4j.Lpf;

import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Two processes of their own JVMs: process 1 sleeps 2 ms before each sync, so that process 0's
 * sync outlasts its spin, blocks in the selector and is woken through a socket. Each JVM first
 * opens 150 files, so that its sockets' descriptors are above 127, as an executor's or a large
 * job's are. Prints process 0's fewest allocated bytes over three rounds of {@code args[0]} syncs
 * (the first rounds warm the JIT), its time per sync, and its highest socket descriptor.
 */
public final class BlockedSyncProgram {
    public static void main(String[] args) throws Exception {
        int syncs = Integer.parseInt(args[0]);
        List<FileChannel> held = new ArrayList<>();
        try {
            for (int i = 0; i < 150; i++) held.add(FileChannel.open(Path.of("/dev/null")));
            Lpf.root().exec(2, ctx -> {
                var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
                long fewest = Long.MAX_VALUE, nanos = 0;
                for (int round = 0; round < 3; round++) {
                    long before = mx.getCurrentThreadAllocatedBytes(), t0 = System.nanoTime();
                    for (int i = 0; i < syncs; i++) {
                        if (ctx.pid() == 1) LockSupport.parkNanos(2_000_000L);
                        ctx.sync();
                    }
                    nanos = System.nanoTime() - t0;
                    fewest = Math.min(fewest, mx.getCurrentThreadAllocatedBytes() - before);
                }
                if (ctx.pid() == 0) {
                    System.out.println("BLOCKED SYNCS " + syncs + " fewest bytes " + fewest + " us per sync " + nanos / 1000 / syncs
                            + " highest socket fd " + highestSocket());
                }
            });
        } finally {
            for (FileChannel f : held) f.close();
        }
    }

    private static int highestSocket() throws Exception {
        int highest = -1;
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    if (Files.readSymbolicLink(fd).toString().startsWith("socket:")) {
                        highest = Math.max(highest, Integer.parseInt(fd.getFileName().toString()));
                    }
                } catch (java.io.IOException closedMeanwhile) {
                    // the listing's own descriptor, gone by now
                }
            }
        }
        return highest;
    }
}
