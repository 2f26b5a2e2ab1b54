package org.lpf4j.engine.hybrid;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** This machine's host name, as the node grouping compares it. */
final class HostName {
    private HostName() {}

    /** @return the kernel's host name ({@code /proc/sys/kernel/hostname}), else {@code HOSTNAME}, else the resolver's */
    static String of() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException | RuntimeException e) {
            String h = System.getenv("HOSTNAME");
            if (h != null && !h.isBlank()) return h.strip();
            try {
                return java.net.InetAddress.getLocalHost().getHostName();
            } catch (IOException x) {
                return "unknown-host";
            }
        }
    }
}
