package org.lpf4j.superstep;

import org.junit.jupiter.api.Test;
import org.lpf4j.spi.kit.BulkCopy;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A put whose source memory was freed before the sync does not stop the exchange half-way (the
 * other ranks would wait for this rank's streams forever): the stream goes out with zeros in its
 * place, every transfer completes, and the sync reports the put, naming the closed Arena.
 * One rank over a transport with no other rank: {@link Packer#pack} is the same for every rank.
 */
class ExchangeFreedSourceTest {
    /** A section of one rank: nothing to send or receive. */
    private static final Transport ALONE = new Transport() {
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

    @Test
    void aPutFromFreedMemoryIsReportedAfterTheExchangeCompletes() {
        for (boolean early : new boolean[] {true, false}) {
            SlotRegister register = new SlotRegister();
            register.resize(0, 1);
            register.capacity().applyAtSync();
            MemorySegment dst = Arena.ofAuto().allocate(64).fill((byte) 0x55);
            register.registerGlobal(dst, 0);
            RequestList queue = new RequestList();
            queue.ensure(2);
            Arena freed = Arena.ofShared();
            MemorySegment src = freed.allocate(64);
            queue.addPut(src, 0, 0, 0, 0, 64, null, -1);
            freed.close();
            NodeRequests one = new NodeRequests() {
                @Override public int processes() { return 1; }
                @Override public RequestList requests(int local) { return queue; }
                @Override public SlotRegister register(int local) { return register; }
                @Override public int rankOf(int pid) { return 0; }
                @Override public int localOf(int pid) { return 0; }
                @Override public int pidOf(int rank, int local) { return rank; }
            };
            try (Exchange exchange = new Exchange(ALONE, 0, 1, new CombinerTable(1, CrossJvmObjects.forCurrentThread()),
                    BulkCopy.JAVA, new org.lpf4j.spi.kit.WireCounts(false, null))) {
                assertEquals(1, exchange.count(one));
                RuntimeException broken;
                if (early) {
                    exchange.sendEarly(one);
                    MemorySegment bits = Arena.ofAuto().allocate(8L * Exchange.pairWords(1));
                    broken = exchange.runEarly(one, true, bits, 0);
                } else {
                    broken = exchange.run(one, false);
                }
                assertNotNull(broken, "early: " + early);
                assertInstanceOf(IllegalStateException.class, broken);
                assertTrue(broken.getMessage().contains("put from pid 0 to pid 0 (size=64): pid 0 closed the Arena of its source"
                        + " memory"), broken.getMessage());
                assertEquals(0, exchange.pendingTransfers());
                exchange.applyPuts(0, register); // the zeros the stream carried: the exchange itself completed
                assertEquals(-1, dst.mismatch(MemorySegment.ofArray(new byte[64])));
            }
            queue.clear();
        }
    }
}
