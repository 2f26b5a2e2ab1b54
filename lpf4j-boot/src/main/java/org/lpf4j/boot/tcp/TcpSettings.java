package org.lpf4j.boot.tcp;

import java.net.InetSocketAddress;

/**
 * What a {@code tcp} session needs, usually read from the {@code lpf.boot.tcp.*} parameters by
 * {@link TcpBoot}; launchers and tests build it directly.
 *
 * @param address              the rendezvous address every rank connects to
 * @param key                  the job key (its bytes are the HMAC key; never sent)
 * @param rank                 this process's rank
 * @param size                 the number of processes
 * @param serve                whether rank 0 hosts the coordinator at {@code address}
 * @param bind                 the host rank 0 listens on when it serves (loopback unless told otherwise)
 * @param connectTimeoutMillis how long to keep trying to reach the coordinator
 * @param maxFrame             the largest frame a member may send
 */
public record TcpSettings(InetSocketAddress address, byte[] key, int rank, int size, boolean serve, String bind,
                          long connectTimeoutMillis, int maxFrame) {
    /** Checks the values. */
    public TcpSettings {
        if (key == null || key.length == 0) throw new IllegalArgumentException("TcpSettings: empty job key");
        if (size < 1 || size > 65_536 || rank < 0 || rank >= size) {
            throw new IllegalArgumentException("TcpSettings: rank " + rank + " of " + size);
        }
        if (maxFrame < Wire.HANDSHAKE_LIMIT) throw new IllegalArgumentException("TcpSettings: maxFrame " + maxFrame);
        key = key.clone();
    }

    @Override public byte[] key() { return key.clone(); }

    /**
     * Parses {@code host:port} (IPv6 hosts in brackets).
     *
     * @param text the address
     * @return it, unresolved name looked up now
     * @throws IllegalArgumentException if it is malformed
     */
    public static InetSocketAddress parseAddress(String text) {
        String t = text.trim();
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) {
            throw new IllegalArgumentException("'" + text + "' is not host:port");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "': port is not a number");
        }
        if (port < 1 || port > 65_535) throw new IllegalArgumentException("'" + text + "': port not in [1, 65535]");
        return new InetSocketAddress(host, port);
    }

    @Override
    public String toString() {
        return "TcpSettings[address=" + address + ", rank=" + rank + ", size=" + size + ", serve=" + serve + ", bind=" + bind
                + ", connectTimeoutMillis=" + connectTimeoutMillis + ", maxFrame=" + maxFrame + ", key=(hidden)]";
    }
}
