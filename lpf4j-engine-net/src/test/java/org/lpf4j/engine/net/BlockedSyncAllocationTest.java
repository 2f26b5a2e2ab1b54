package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.NetJob;
import org.lpf4j.testkit.ScriptsJvmOptions;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sync that blocks and is woken through a socket allocates nothing in the JVMs the project's
 * scripts start, whose sockets' descriptors are above 127 ({@link BlockedSyncProgram}). The JDK's
 * epoll selector boxes a ready socket's descriptor as an {@code Integer}, a new object above the
 * cache's bound; {@code bin/jdk25.sh}'s {@code LPF_JVM_OPTIONS} raise the bound. The run without
 * them shows that the program's syncs really block on such a socket.
 */
class BlockedSyncAllocationTest {
    private static final int SYNCS = 300;
    private static final Pattern RESULT = Pattern.compile("BLOCKED SYNCS \\d+ fewest bytes (\\d+) us per sync (\\d+) highest socket fd (\\d+)");

    @Test
    void aBlockedSyncAllocatesNothingWithTheScriptsJvmOptions() throws Exception {
        List<String> options = new ArrayList<>(ScriptsJvmOptions.get()); // NetJob gives them too: named here as what is tested
        options.add("-Dlpf.engine=net");
        long with = run(options);
        assertTrue(with < 2L * SYNCS, "pid 0 allocated " + with + " bytes in " + SYNCS + " blocked syncs with " + options);
    }

    @Test
    void withoutThemEachBlockedSyncAllocatesInTheSelector() throws Exception {
        long without = run(List.of("-XX:AutoBoxCacheMax=128", "-Dlpf.engine=net")); // the JDK's default, after NetJob's
        // 16 bytes (an Integer) per wake-up; a sync whose peer arrived within the spin does not block.
        assertTrue(without >= 8L * SYNCS, "pid 0 allocated only " + without + " bytes in " + SYNCS + " blocked syncs without"
                + " the scripts' options: the JDK's selector no longer boxes descriptors, and -XX:AutoBoxCacheMax may go");
    }

    /** @return pid 0's fewest bytes, after asserting that its syncs blocked on a socket of a descriptor above 127 */
    private static long run(List<String> options) throws Exception {
        String out = NetJob.run(2, 1, 120, options, BlockedSyncProgram.class.getName(), Integer.toString(SYNCS));
        Matcher m = RESULT.matcher(out);
        assertTrue(m.find(), out);
        System.out.println(options + ": " + m.group());
        long micros = Long.parseLong(m.group(2)), fd = Long.parseLong(m.group(3));
        assertTrue(fd > 127, "the sockets' descriptors are low, the boxing is not exercised:\n" + out);
        assertTrue(micros >= 1500, "pid 0 waited " + micros + " us per sync, less than pid 1's 2 ms sleep:\n" + out);
        return Long.parseLong(m.group(1));
    }
}
