package org.lpf4j.superstep;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A plain put a rank makes to itself is copied once, from its source to its destination when it
 * is applied: its stream to itself carries the header only ({@link PackedHeader#PUT_LOCAL}), never
 * the payload. Checked for native and heap sources, sizes on both sides of {@link Packer#LARGE},
 * a source at an offset, a destination inside the source's own area (copied as if through a
 * temporary, as {@link MemorySegment#copy} does), a zero-size one, and in apply order with a put
 * to itself that combines (which still travels inline), both ways of the exchange.
 */
class ExchangeLocalPutTest {
    private static final long SIZE = 3 * Packer.LARGE + 8;

    @ParameterizedTest(name = "early: {0}")
    @ValueSource(booleans = {true, false})
    void aPutToItselfCarriesNoPayloadInTheStreamAndLandsInOrder(boolean early) {
        try (Arena arena = Arena.ofConfined()) {
            SlotRegister register = AloneTransport.register(2);
            MemorySegment dst = arena.allocate(4 * SIZE).fill((byte) 0x55);
            MemorySegment both = arena.allocate(64);
            for (int i = 0; i < 64; i++) both.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            register.registerGlobal(dst, 0);
            register.registerGlobal(both, 0);
            MemorySegment nativeSource = arena.allocate(SIZE + 16);
            for (long i = 0; i < SIZE + 16; i++) nativeSource.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            byte[] heap = new byte[100];
            for (int i = 0; i < heap.length; i++) heap[i] = (byte) (200 - i);
            MemorySegment heapSource = MemorySegment.ofArray(heap);

            RequestList queue = new RequestList();
            queue.ensure(8);
            queue.addPut(nativeSource, 16, 0, 0, 0, SIZE, null, -1);          // large, from an offset
            queue.addPut(heapSource, 0, 0, 0, SIZE, heap.length, null, -1);     // small, from the heap
            queue.addPut(nativeSource, 0, 0, 0, 8, 24, null, -1);              // overwrites part of the first, after it
            queue.addPut(heapSource, 0, 0, 0, 2 * SIZE, 0, null, -1);          // zero size: nothing
            queue.addPut(both, 0, 0, 1, 8, 32, null, -1);                      // into its own area, overlapping
            NodeRequests one = AloneTransport.oneProcess(queue, register);
            try (Exchange exchange = AloneTransport.newExchange()) {
                assertEquals(5, exchange.count(one));
                assertEquals(5L * PackedHeader.LENGTH, exchange.outBytes(0), "headers only in the stream to itself");
                assertNull(AloneTransport.exchange(exchange, one, early, arena));
                exchange.applyPuts(0, register);
            }
            MemorySegment expected = arena.allocate(4 * SIZE).fill((byte) 0x55);
            MemorySegment.copy(nativeSource, 16, expected, 0, SIZE);
            MemorySegment.copy(heapSource, 0, expected, SIZE, heap.length);
            MemorySegment.copy(nativeSource, 0, expected, 8, 24);
            assertEquals(-1, dst.mismatch(expected), "the puts to itself, in queue order");
            for (int i = 0; i < 64; i++) {
                assertEquals((byte) (i < 8 || i >= 40 ? i : i - 8), both.get(ValueLayout.JAVA_BYTE, i), "byte " + i);
            }
        }
    }

    @ParameterizedTest(name = "early: {0}")
    @ValueSource(booleans = {true, false})
    void aCombiningPutToItselfIsAppliedInQueueOrderWithThePlainOnes(boolean early) {
        try (Arena arena = Arena.ofConfined()) {
            SlotRegister register = AloneTransport.register(1);
            MemorySegment dst = arena.allocate(16);
            register.registerGlobal(dst, 0);
            MemorySegment five = arena.allocate(8).fill((byte) 0), seven = arena.allocate(8).fill((byte) 0);
            five.set(ValueLayout.JAVA_LONG, 0, 5);
            seven.set(ValueLayout.JAVA_LONG, 0, 7);
            org.lpf4j.MsgAttr sum = org.lpf4j.MsgAttr.combining(8, new MemoryProtocolTest.Sum());
            RequestList queue = new RequestList();
            queue.ensure(4);
            queue.addPut(five, 0, 0, 0, 0, 8, null, -1);   // 5
            queue.addPut(seven, 0, 0, 0, 0, 8, sum, -1);   // then + 7
            queue.addPut(seven, 0, 0, 0, 8, 8, sum, -1);   // 0 + 7 (the area was zeros)
            queue.addPut(five, 0, 0, 0, 8, 8, null, -1);   // then 5 over it
            NodeRequests one = AloneTransport.oneProcess(queue, register);
            try (Exchange exchange = AloneTransport.newExchange()) {
                dst.fill((byte) 0);
                exchange.count(one);
                assertNull(AloneTransport.exchange(exchange, one, early, arena));
                exchange.applyPuts(0, register);
            }
            assertEquals(12, dst.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(5, dst.get(ValueLayout.JAVA_LONG, 8));
        }
    }

    /** Freeing a put's source during the sync is the program's error: the other puts are written, this one's place gets zeros, and it is named. */
    @ParameterizedTest(name = "early: {0}")
    @ValueSource(booleans = {true, false})
    void aSourceFreedDuringTheSyncWritesZerosAndIsReportedAfterTheOthers(boolean early) {
        try (Arena arena = Arena.ofConfined()) {
            SlotRegister register = AloneTransport.register(1);
            MemorySegment dst = arena.allocate(64).fill((byte) 0x55);
            register.registerGlobal(dst, 0);
            Arena freed = Arena.ofShared();
            MemorySegment gone = freed.allocate(32).fill((byte) 1), kept = arena.allocate(32).fill((byte) 2);
            RequestList queue = new RequestList();
            queue.ensure(2);
            queue.addPut(gone, 0, 0, 0, 0, 32, null, -1);
            queue.addPut(kept, 0, 0, 0, 32, 32, null, -1);
            NodeRequests one = AloneTransport.oneProcess(queue, register);
            try (Exchange exchange = AloneTransport.newExchange()) {
                exchange.count(one);
                assertNull(AloneTransport.exchange(exchange, one, early, arena));
                freed.close();
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> exchange.applyPuts(0, register));
                assertEquals("put to itself (global#0, offset=0, size=32): the Arena of its source memory was closed during"
                        + " the sync", e.getMessage());
            }
            MemorySegment expected = arena.allocate(64).fill((byte) 0);
            expected.asSlice(32).fill((byte) 2);
            assertEquals(-1, dst.mismatch(expected));
        }
    }
}
