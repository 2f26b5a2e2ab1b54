package org.lpf4j.testkit;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/** What the benchmarks of the multi-process engines ask the JIT: whether it is still compiling. */
public final class Jit {
    private Jit() {}

    /** @return the JIT's total compilation time in this JVM so far, ms (-1 if the JVM does not say) */
    public static long compilationMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }
}
