package org.lpf4j.engine.net;

import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The program of {@link ShmJobTest}: every JVM of a net job on this host; pid 0 runs a section
 * of 3 that puts a ring of values and syncs in a loop. Each pid says how many of the job's
 * shared-memory files (one per connection on rings) it has mapped ({@code MAPPED}) and how many files are left in the launcher's
 * directory once all are set up ({@code FILES}); with argument {@code kill}, pid 2 prints its JVM's
 * pid and the loop goes on until the test kills that JVM, and pid 0 prints when its sync threw
 * ({@code FATAL <epoch ms> <message>}).
 */
public final class ShmKillProgram {
    private ShmKillProgram() {}

    public static void main(String[] args) {
        boolean kill = args.length > 0 && args[0].equals("kill");
        Lpf.root().exec(3, ctx -> {
            int s = ctx.pid(), n = ctx.nprocs();
            MemorySegment x = Arena.ofAuto().allocate(16);
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            System.out.println("MAPPED pid " + s + " " + mappedFiles());
            if (s == 0) System.out.println("FILES " + filesLeft());
            if (kill && s == 2) System.out.println("JVM " + ProcessHandle.current().pid());
            try {
                for (long i = 0; kill || i < 1000; i++) {
                    x.set(ValueLayout.JAVA_LONG, 0, i * 10 + s);
                    ctx.put(xs, 0, (s + 1) % n, xs, 8, 8);
                    ctx.sync();
                    long got = x.get(ValueLayout.JAVA_LONG, 8);
                    if (got != i * 10 + (s - 1 + n) % n) throw new IllegalStateException("superstep " + i + ": got " + got);
                }
            } catch (FatalException e) {
                if (s == 0) System.out.println("FATAL " + System.currentTimeMillis() + " " + e.getMessage().replace('\n', ' '));
                throw e;
            }
            System.out.println("DONE pid " + s);
        });
    }

    /** @return the mappings of this JVM under the launcher's shared-memory directory */
    private static long mappedFiles() {
        String dir = System.getenv(LocalPeers.DIR_VARIABLE);
        try (Stream<String> maps = Files.lines(Path.of("/proc/self/maps"))) {
            return dir == null ? -1 : maps.filter(l -> l.contains(dir)).map(l -> l.substring(l.indexOf('/'))).distinct().count();
        } catch (IOException e) {
            return -1;
        }
    }

    /** @return the files and directories under the launcher's shared-memory directory */
    private static long filesLeft() {
        String dir = System.getenv(LocalPeers.DIR_VARIABLE);
        try (Stream<Path> all = Files.walk(Path.of(dir))) {
            return all.count() - 1;
        } catch (IOException e) {
            return -1;
        }
    }
}
