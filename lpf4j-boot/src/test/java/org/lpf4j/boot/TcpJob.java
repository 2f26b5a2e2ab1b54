package org.lpf4j.boot;

import java.io.IOException;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/** Starts a {@code tcp} job of separate JVMs running {@link BootWorker}. */
final class TcpJob {
    private TcpJob() {}

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static String newKey() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return HexFormat.of().formatHex(k);
    }

    /** Starts ranks 0..p-1 with the given address and key; {@code serve}: rank 0 hosts the coordinator. */
    static void start(Jvms jvms, int p, String address, String key, boolean serve, String... args) throws IOException {
        for (int r = 0; r < p; r++) {
            Map<String, String> env = new HashMap<>();
            env.put("LPF_BOOT_TCP_ADDRESS", address);
            env.put("LPF_BOOT_TCP_KEY", key);
            env.put("LPF_BOOT_TCP_RANK", Integer.toString(r));
            env.put("LPF_BOOT_TCP_SIZE", Integer.toString(p));
            env.put("LPF_BOOT_TCP_SERVE", Boolean.toString(serve));
            jvms.start(Jvms.java(BootWorker.class, args), env);
        }
    }

    static List<String> lines(String output, String prefix) {
        return output.lines().filter(l -> l.startsWith(prefix)).toList();
    }
}
