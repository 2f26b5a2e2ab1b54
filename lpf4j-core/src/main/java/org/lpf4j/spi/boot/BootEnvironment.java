package org.lpf4j.spi.boot;

/**
 * The environment variables through which a launcher that starts JVMs itself tells each one how
 * to join its job through the {@code tcp} boot module: the parameters {@code lpf.boot.tcp.address},
 * {@code .key}, {@code .rank}, {@code .size} and {@code .serve} as environment variables (the
 * usual {@code LPF_<FRAMEWORK>_<MODULE>_<NAME>} spelling), spelled once for the launchers that set
 * them (the net engine's loopback launch, {@code lpf boot-test}).
 */
public final class BootEnvironment {
    private BootEnvironment() {}

    /** The rendezvous host:port every process connects to. */
    public static final String TCP_ADDRESS = "LPF_BOOT_TCP_ADDRESS";
    /** The job's shared key (proved, never sent). */
    public static final String TCP_KEY = "LPF_BOOT_TCP_KEY";
    /** This process's rank. */
    public static final String TCP_RANK = "LPF_BOOT_TCP_RANK";
    /** The job's number of processes. */
    public static final String TCP_SIZE = "LPF_BOOT_TCP_SIZE";
    /** "false": rank 0 does not host the coordinator (the launcher runs it at the address). */
    public static final String TCP_SERVE = "LPF_BOOT_TCP_SERVE";
}
