package org.lpf4j.engine.net;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.testkit.NetJob;

import java.util.ArrayList;
import java.util.List;

/**
 * Issue 41's scale test bed (docs/scale.md). Always run, short: a job of 32 processes as threads
 * of 4 JVMs ({@code lpf.engine.net.perJvm=8}, every process its own mesh over loopback sockets)
 * runs the DRMA class of the conformance suite at p = 32; and 4 emulated
 * hosts ({@code bin/emulated-hosts}: network namespaces on a bridge, links shaped by tc), one JVM
 * each, booted by the tcp boot across them, run the DRMA class at p = 4.
 *
 * <p>With {@code -Dlpf.scale=true}, the long ones: the conformance, collectives and BSMP suites
 * with their process counts replaced by {@code lpf.test.procs} at p = 64 JVMs of small heaps,
 * at p = 256 threads of 8 JVMs, and at p = 64 on 8 emulated hosts of 8 JVMs each
 * ({@code lpf.scale.hosts}, {@code lpf.scale.perHost}; {@code lpf.scale.perJvm} makes the p = 64 run
 * one of threads, {@code lpf.scale.suites} picks suites, {@code lpf.scale.options} adds JVM options). JUnit's per-test timeouts are off in those
 * jobs (a superstep at p = 256 on 2 cores is slow); each job has a deadline of its own.
 */
class ScaleTest {
    /** The flag of the long runs. */
    static final boolean SCALE = Boolean.getBoolean("lpf.scale");
    /** The JVM options of the many-JVM jobs: small heaps, C1 only, CDS (docs/scale.md has the measurement). */
    static final List<String> SMALL_JVM = List.of("-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
            "-XX:CICompilerCount=1");
    /** Seconds each long job may take ({@code lpf.scale.timeout}, at most 7000: the tests' own limit). */
    private static final int LONG = Math.min(7000, Integer.getInteger("lpf.scale.timeout", 7000));
    private static final String[] SUITES = {"package:org.lpf4j.conformance", "package:org.lpf4j.coll", "package:org.lpf4j.bsmp"};

    /** @return the JVM options of a net job of the suites' driver at p processes ({@code lpf.test.procs}), then {@code more} */
    static List<String> options(int p, String... more) {
        // The long runs' first superstep that connects every pair (32,640 at p = 256) takes minutes on 2 cores.
        List<String> all = new ArrayList<>(List.of("-Dlpf.engine=net", "-Dlpf.test.engine=net", "-Dlpf.test.procs=" + p,
                "-Dlpf.engine.net.setupMillis=1800000", "-Dlpf.boot.fence.timeout=600000",
                "-Dlpf.engine.net.syncTimeout=" + (p > 32 ? 1_800_000 : 120_000)));
        all.addAll(List.of(more));
        String extra = System.getProperty("lpf.scale.options", "").strip(); // e.g. -XX:NativeMemoryTracking=summary, to look inside
        if (!extra.isEmpty()) all.addAll(List.of(extra.split("\\s+")));
        return all;
    }

    @Test
    @Timeout(180)
    void thirtyTwoProcessesAsThreadsOfFourJvms() throws Exception {
        long t0 = System.nanoTime();
        String out = NetJob.run(32, 8, 170, options(32), NetJob.CONFORMANCE_MAIN,
                "org.lpf4j.conformance.DrmaTest");
        NetJob.assertSuitePassed(out, 5);
        System.out.println("ScaleTest p=32 (4 JVMs of 8): " + summary(out) + " in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
    }

    @Test
    @Timeout(180)
    void fourEmulatedHosts() throws Exception {
        String out = EmulatedHosts.run(4, 1, 4, 170, List.of(), "org.lpf4j.conformance.DrmaTest");
        NetJob.assertSuitePassed(out, 1);
    }

    // ---- behind -Dlpf.scale=true ----

    @Test
    @Timeout(7200)
    void theSuitesOnSixtyFourJvms() throws Exception {
        Assumptions.assumeTrue(SCALE, "-Dlpf.scale=true runs the scale suites");
        int perJvm = Integer.getInteger("lpf.scale.perJvm", 1);
        // A process holds two connections per peer of 128 KiB of direct buffers each (Mesh): 256 KiB × (p - 1).
        List<String> o = new ArrayList<>(perJvm == 1 ? SMALL_JVM : List.of("-Xmx512m", "-XX:MaxDirectMemorySize=1g"));
        o.addAll(options(64, "-Djunit.jupiter.execution.timeout.mode=disabled"));
        long t0 = System.nanoTime();
        String out = NetJob.run(64, perJvm, LONG, o, NetJob.CONFORMANCE_MAIN, suites());
        System.out.println("ScaleTest p=64 (" + 64 / perJvm + " JVMs): " + summary(out) + " in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        NetJob.assertSuitePassed(out, 1);
    }

    @Test
    @Timeout(7200)
    void theSuitesOnTwoHundredFiftySixThreadsOfEightJvms() throws Exception {
        Assumptions.assumeTrue(SCALE, "-Dlpf.scale=true runs the scale suites");
        long t0 = System.nanoTime();
        // 8 JVMs in 24 GB: 32 MiB of rings a process (4 GiB in all); 32 ranks ran out of 512 MiB of heap after 88 tests.
        String out = NetJob.run(256, 32, LONG, options(256, "-Djunit.jupiter.execution.timeout.mode=disabled", "-Xmx768m",
                "-XX:MaxDirectMemorySize=3g", "-Dlpf.engine.net.shmProcessBytes=" + (32 << 20)),
                NetJob.CONFORMANCE_MAIN, suites());
        System.out.println("ScaleTest p=256 (8 JVMs of 32): " + summary(out) + " in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        NetJob.assertSuitePassed(out, 1);
    }

    @Test
    @Timeout(7200)
    void theSuitesOnEmulatedHosts() throws Exception {
        Assumptions.assumeTrue(SCALE, "-Dlpf.scale=true runs the scale suites");
        int hosts = Integer.getInteger("lpf.scale.hosts", 8), perHost = Integer.getInteger("lpf.scale.perHost", 8);
        String out = EmulatedHosts.run(hosts, perHost, hosts * perHost, LONG, List.of(), suites());
        NetJob.assertSuitePassed(out, 1);
    }

    /** @return the suites named by {@code lpf.scale.suites} (comma-separated), else the three */
    private static String[] suites() {
        String s = System.getProperty("lpf.scale.suites", "").strip();
        return s.isEmpty() ? SUITES : s.split("\\s*,\\s*");
    }

    static String summary(String out) {
        long refused = out.lines().filter(l -> l.contains("whose rings do not fit")).count();
        return out.lines().filter(l -> l.startsWith("CONFORMANCE")).findFirst().orElse("(no summary)")
                + (refused == 0 ? "" : "; " + refused + " processes kept pairs of their JVM on TCP, e.g. "
                        + out.lines().filter(l -> l.contains("whose rings do not fit")).findFirst().orElseThrow());
    }

}
