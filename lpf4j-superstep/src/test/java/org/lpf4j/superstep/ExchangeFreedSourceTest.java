package org.lpf4j.superstep;

import org.junit.jupiter.api.Test;
import org.lpf4j.MsgAttr;
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
 * other ranks would wait for this rank's streams forever): zeros take its payload's place, every
 * transfer completes, and the sync reports the put, naming the closed Arena. One rank over a
 * transport with no other rank, {@link Packer#pack} being the same for every rank: a combining put
 * travels in the stream (zeros are packed, and combined at the destination) as a put to another
 * rank does; a plain put to itself is read from its source when applied (zeros are written).
 */
class ExchangeFreedSourceTest {
    @Test
    void aPutFromFreedMemoryIsReportedAfterTheExchangeCompletes() {
        for (boolean early : new boolean[] {true, false}) for (boolean combining : new boolean[] {false, true}) {
            SlotRegister register = AloneTransport.register(1);
            MemorySegment dst = Arena.ofAuto().allocate(64).fill((byte) 0x55);
            register.registerGlobal(dst, 0);
            RequestList queue = new RequestList();
            queue.ensure(2);
            Arena freed = Arena.ofShared();
            MemorySegment src = freed.allocate(64);
            queue.addPut(src, 0, 0, 0, 0, 64, combining ? MsgAttr.combining(8, new MemoryProtocolTest.Sum()) : null, -1);
            freed.close();
            NodeRequests one = AloneTransport.oneProcess(queue, register);
            try (Exchange exchange = AloneTransport.newExchange()) {
                assertEquals(1, exchange.count(one));
                RuntimeException broken = AloneTransport.exchange(exchange, one, early, Arena.ofAuto());
                assertNotNull(broken, "early: " + early);
                assertInstanceOf(IllegalStateException.class, broken);
                assertTrue(broken.getMessage().contains("put from pid 0 to pid 0 (size=64): pid 0 closed the Arena of its source"
                        + " memory"), broken.getMessage());
                assertEquals(0, exchange.pendingTransfers());
                exchange.applyPuts(0, register); // zeros in the source's place: the exchange itself completed
                byte[] expected = new byte[64];
                if (combining) java.util.Arrays.fill(expected, (byte) 0x55); // combined with zeros
                assertEquals(-1, dst.mismatch(MemorySegment.ofArray(expected)), "early: " + early + ", combining: " + combining);
            }
            queue.clear();
        }
    }
}
