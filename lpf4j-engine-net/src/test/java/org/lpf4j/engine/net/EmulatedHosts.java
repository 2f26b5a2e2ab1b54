package org.lpf4j.engine.net;

import org.lpf4j.testkit.EmulatedHostsScript;
import org.lpf4j.testkit.NetJob;
import org.lpf4j.testkit.Needs;
import org.lpf4j.testkit.ScriptsJvmOptions;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A net job of the suites' driver on emulated hosts ({@code bin/emulated-hosts}: network
 * namespaces on a bridge, docs/scale.md), for {@link ScaleTest} and {@link MixedPlacementTest}.
 * The job's process tree is killed in {@code finally}; nothing of it is left behind.
 */
final class EmulatedHosts {
    private EmulatedHosts() {}

    private static final Pattern SENT = Pattern.compile("bytes sent per host:((?: h\\d+=\\d+)+)");

    /**
     * Runs the suites' driver on {@code hosts × perHost} JVMs of {@code bin/emulated-hosts} (rank r on
     * host r / perHost), the test class path, and checks that every host sent bytes (the job crossed
     * the hosts). Under {@code CI=true} a missing capability (root, iproute2, namespaces) fails ({@link Needs}).
     *
     * @param jvmOptions more options of every JVM of the job
     * @return the job's output
     */
    static String run(int hosts, int perHost, int p, int timeoutSeconds, List<String> jvmOptions, String... suites) throws Exception {
        Needs.that(status(List.of("ip", "-V")) == 0 && status(List.of("tc", "-V")) == 0, "the emulated hosts need iproute2 (ip, tc)");
        String marker = "lpf.test.marker=" + UUID.randomUUID();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> args = new ArrayList<>(List.of("--hosts", Integer.toString(hosts), "--per-host",
                Integer.toString(perHost), "--timeout", Integer.toString(timeoutSeconds - 10), "--", java, "-D" + marker));
        args.addAll(ScriptsJvmOptions.get());
        args.add("-Dlpf.engine.net.syncTimeout=120000");
        if (p > 8) args.addAll(ScaleTest.SMALL_JVM);
        args.addAll(ScaleTest.options(p, "-Djunit.jupiter.execution.timeout.mode=" + (p > 8 ? "disabled" : "enabled")));
        args.addAll(jvmOptions); // after the defaults: a -D given twice takes the last value
        args.addAll(List.of("-cp", cp, NetJob.CONFORMANCE_MAIN));
        args.addAll(List.of(suites));
        long t0 = System.nanoTime();
        String out = EmulatedHostsScript.run(args, Map.of(), marker, timeoutSeconds);
        Matcher m = SENT.matcher(out);
        assertTrue(m.find(), "no per-host byte counts:\n" + out);
        for (String h : m.group(1).strip().split(" ")) {
            assertTrue(Long.parseLong(h.substring(h.indexOf('=') + 1)) > 0, "host " + h + " sent nothing:\n" + out);
        }
        System.out.println("EmulatedHosts " + hosts + " emulated hosts x " + perHost + " JVMs: " + ScaleTest.summary(out) + "; " + m.group(0)
                + " in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        return out;
    }


    private static int status(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
            return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
        } finally {
            p.destroyForcibly();
        }
    }
}
