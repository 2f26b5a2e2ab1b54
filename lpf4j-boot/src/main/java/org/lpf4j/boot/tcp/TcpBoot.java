package org.lpf4j.boot.tcp;

import org.lpf4j.spi.BootModule;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.Parameters;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;
import org.lpf4j.spi.boot.BootSession;

import java.nio.charset.StandardCharsets;

/**
 * Boot module {@code tcp}: independent JVMs (containers, a cluster's own scripts, {@code lpf boot-test})
 * meet at one rendezvous address. Each process is told the address, the job key, its rank and the
 * job size ({@code lpf.boot.tcp.address}, {@code .key}, {@code .rank}, {@code .size}, or the
 * variables {@code LPF_BOOT_TCP_ADDRESS}, ...); rank 0 listens there (on {@code lpf.boot.tcp.bind},
 * loopback by default) unless {@code lpf.boot.tcp.serve=false} says a launcher runs the
 * coordinator. Priority 40 when all four are set, declined otherwise, naming what is missing.
 */
public final class TcpBoot implements BootModule {
    private static final Version VERSION = new Version(0, 1, 0);
    private static final Version API = new Version(1, 0, 0);

    private Parameters.Parameter<String> address;
    private Parameters.Parameter<String> key;
    private Parameters.Parameter<Integer> rank;
    private Parameters.Parameter<Integer> size;
    private Parameters.Parameter<Boolean> serve;
    private Parameters.Parameter<String> bind;
    private Parameters.Parameter<Integer> connectTimeout;
    private Parameters.Parameter<Integer> maxFrame;

    /** For {@link java.util.ServiceLoader}. */
    public TcpBoot() {}

    @Override public String name() { return "tcp"; }

    @Override public Version frameworkApiVersion() { return API; }

    @Override public Version version() { return VERSION; }

    @Override
    public void open(ModuleParameters p) {
        address = p.string("address", "", "rendezvous host:port every process connects to (rank 0 listens there unless serve=false)");
        key = p.string("key", "", "the job's shared secret; every connection proves it holds it (HMAC-SHA256), it is never sent");
        rank = p.integer("rank", -1, -1, 65_535, "this process's rank; -1: not set");
        size = p.integer("size", 0, 0, 65_536, "the number of processes of the job; 0: not set");
        serve = p.bool("serve", true, "rank 0 hosts the coordinator; false: a launcher runs it at the address");
        bind = p.string("bind", "127.0.0.1", "the host rank 0 listens on (loopback unless told otherwise, e.g. 0.0.0.0)");
        connectTimeout = p.integer("connect_timeout", 30_000, 1, 3_600_000, "how long (ms) a process keeps trying to reach the coordinator");
        maxFrame = p.integer("max_frame", 64 << 20, Wire.HANDSHAKE_LIMIT, Integer.MAX_VALUE - 16,
                "largest message (bytes) a member may send; bounds a single value");
    }

    @Override
    public Query query() {
        if (address == null) return Query.decline("not opened");
        try {
            settings();
            return Query.run(40);
        } catch (IllegalArgumentException e) {
            return Query.decline(e.getMessage());
        }
    }

    /**
     * @return the settings the parameters describe
     * @throws IllegalArgumentException naming what is missing or malformed
     */
    public TcpSettings settings() {
        String a = address.get().trim();
        if (a.isEmpty()) throw new IllegalArgumentException("no rendezvous address (set lpf.boot.tcp.address or LPF_BOOT_TCP_ADDRESS to host:port)");
        String k = key.get();
        if (k.isEmpty()) throw new IllegalArgumentException("no job key (set lpf.boot.tcp.key or LPF_BOOT_TCP_KEY)");
        int r = rank.get(), s = size.get();
        if (r < 0 || s < 1) throw new IllegalArgumentException("rank and size not set (lpf.boot.tcp.rank, lpf.boot.tcp.size)");
        if (r >= s) throw new IllegalArgumentException("lpf.boot.tcp.rank " + r + " not below lpf.boot.tcp.size " + s);
        return new TcpSettings(TcpSettings.parseAddress(a), k.getBytes(StandardCharsets.UTF_8), r, s, serve.get(), bind.get().trim(),
                connectTimeout.get(), maxFrame.get());
    }

    @Override
    public Membership membership() {
        TcpSettings s = settings();
        return new Membership(s.rank(), s.size(), "lpf.boot.tcp.rank/size");
    }

    @Override
    public BootSession openSession() { return TcpSession.open(settings()); }
}
