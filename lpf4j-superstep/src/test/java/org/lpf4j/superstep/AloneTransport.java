package org.lpf4j.superstep;

import org.lpf4j.spi.kit.BulkCopy;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;
import org.lpf4j.spi.kit.WireCounts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** The transport of a section of one rank, for tests of one {@link Exchange}: nothing to send or receive. */
final class AloneTransport {
    private AloneTransport() {}

    static final Transport INSTANCE = new Transport() {
        @Override public int rank() { return 0; }
        @Override public int ranks() { return 1; }
        @Override public long eagerBytes() { return 4032; }
        @Override public void allreduce(MemorySegment buffer, int words, Reduction op) {
            MemorySegment.copy(buffer, 0, buffer, 8L * words, 8L * words);
        }
        @Override public void alltoallLongs(MemorySegment buffer, long inAt) { }
        @Override public void exchangeNonzero(long[] out, long[] in) { }
        @Override public void receive(int batch, Channel channel, MemorySegment into, long offset, long bytes, int rank) {
            throw new AssertionError("a section of one rank receives nothing");
        }
        @Override public void send(int batch, Channel channel, MemorySegment from, long offset, long bytes, int rank) {
            throw new AssertionError("a section of one rank sends nothing");
        }
        @Override public void complete(int batch) { }
        @Override public int pending() { return 0; }
        @Override public void sendMessage(byte[] bytes, int rank) { throw new AssertionError("nobody to send to"); }
        @Override public byte[] receiveMessage(int rank) { throw new AssertionError("nobody to receive from"); }
        @Override public void close() { }
    };

    /** @return the exchange of this section's one rank, over {@link #INSTANCE} */
    static Exchange newExchange() {
        return new Exchange(INSTANCE, 0, 1, new CombinerTable(1, CrossJvmObjects.forCurrentThread()), BulkCopy.JAVA,
                new WireCounts(false, null));
    }

    /** @return a register of {@code slots} slots, usable at once */
    static SlotRegister register(int slots) {
        SlotRegister register = new SlotRegister();
        register.resize(0, slots);
        register.capacity().applyAtSync();
        return register;
    }

    /** Runs the exchange the early way (streams before the round) or after the round. @return what it reports broken */
    static RuntimeException exchange(Exchange exchange, NodeRequests one, boolean early, Arena arena) {
        if (!early) return exchange.run(one, false);
        exchange.sendEarly(one);
        return exchange.runEarly(one, true, arena.allocate(8L * Exchange.pairWords(1)), 0);
    }

    /** The requests of the section's one process, pid 0. */
    static NodeRequests oneProcess(RequestList queue, SlotRegister register) {
        return new NodeRequests() {
            @Override public int processes() { return 1; }
            @Override public RequestList requests(int local) { return queue; }
            @Override public SlotRegister register(int local) { return register; }
            @Override public int rankOf(int pid) { return 0; }
            @Override public int localOf(int pid) { return 0; }
            @Override public int pidOf(int rank, int local) { return rank; }
        };
    }
}
