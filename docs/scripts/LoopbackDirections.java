// Two JVMs exchange SIZE bytes each way per round over loopback TCP, nonblocking and polling as the
// net engine's mesh does, over one connection used in both directions or over two connections,
// one per direction; the ways take turns, round after round, and each prints its median time.
// Why the net engine's mesh keeps a connection per direction (docs/performance.md, "Net engine").
// Run: java docs/scripts/LoopbackDirections.java [SIZE=1048576] [EXCHANGES=2000] [ROUNDS=3]
// (the peer is a second JVM this program starts and stops; nothing but loopback is used)
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

public class LoopbackDirections {
    /** This file, from the project's root, where the usage line runs it. */
    private static final String SOURCE = "docs/scripts/LoopbackDirections.java";

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("peer")) {
            peer(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            return;
        }
        int size = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 20;
        int exchanges = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = server.socket().getLocalPort();
            String launcher = ProcessHandle.current().info().command().orElse("java");
            // Run as a source file (the usual way) the class is in memory only: the peer runs the file too.
            boolean fromSource = LoopbackDirections.class.getClassLoader() != ClassLoader.getSystemClassLoader();
            List<String> command = fromSource ? new ArrayList<>(List.of(launcher, SOURCE))
                    : new ArrayList<>(List.of(launcher, "-cp", System.getProperty("java.class.path"), LoopbackDirections.class.getName()));
            command.addAll(List.of("peer", Integer.toString(port), Integer.toString(size),
                    Integer.toString(exchanges), Integer.toString(rounds)));
            Process peer = new ProcessBuilder(command).inheritIO().start();
            try {
                for (int r = 0; r < rounds; r++) {
                    for (boolean dual : new boolean[] {false, true}) {
                        SocketChannel first = tuned(server.accept()), second = dual ? tuned(server.accept()) : first;
                        long median = exchange(first, second, size, exchanges);
                        System.out.printf("%-32s %8.1f us per exchange, %5.2f GB/s each way%n",
                                dual ? "two connections, one each way:" : "one connection, both ways:",
                                median / 1e3, size / (double) median);
                        first.close();
                        second.close();
                    }
                }
                if (!peer.waitFor(60, TimeUnit.SECONDS)) throw new IllegalStateException("the peer JVM did not end");
            } finally {
                peer.destroyForcibly();
            }
        }
    }

    private static void peer(int port, int size, int exchanges, int rounds) throws IOException {
        InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        for (int r = 0; r < rounds; r++) {
            for (boolean dual : new boolean[] {false, true}) {
                SocketChannel first = tuned(SocketChannel.open(at)), second = dual ? tuned(SocketChannel.open(at)) : first;
                // The peer reads on the connection the first process writes on, and the other way round.
                exchange(second, first, size, exchanges);
                first.close();
                second.close();
            }
        }
    }

    private static SocketChannel tuned(SocketChannel ch) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.configureBlocking(false);
        return ch;
    }

    /** Writes {@code size} bytes on {@code out} while reading as many from {@code in}, {@code exchanges} times; returns the median nanoseconds of the later three quarters. */
    private static long exchange(SocketChannel out, SocketChannel in, int size, int exchanges) throws IOException {
        ByteBuffer send = ByteBuffer.allocateDirect(size), receive = ByteBuffer.allocateDirect(size);
        long[] t = new long[exchanges];
        for (int i = 0; i < exchanges; i++) {
            long start = System.nanoTime();
            send.clear();
            receive.clear();
            while (send.hasRemaining() || receive.hasRemaining()) {
                if (send.hasRemaining()) out.write(send);
                if (receive.hasRemaining() && in.read(receive) < 0) throw new IOException("the peer closed its connection");
            }
            t[i] = System.nanoTime() - start;
        }
        long[] later = Arrays.copyOfRange(t, exchanges / 4, exchanges);
        Arrays.sort(later);
        return later[later.length / 2];
    }
}
