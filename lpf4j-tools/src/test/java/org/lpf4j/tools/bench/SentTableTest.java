package org.lpf4j.tools.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SentTable} prints per workload and p what process 0 sent per step: data+meta messages,
 * payload+meta-data bytes (headers and the collectives' bytes), connections; '?' where the engine
 * cannot see its collectives' messages (MPI), '-' where a cell was not measured, and one line
 * instead of the table when the engine counts nothing (one JVM).
 */
class SentTableTest {
    @Test
    void cellsShowDataPlusMetaMessagesAndBytesAndConnections() {
        SentTable t = new SentTable();
        t.add("empty sync", 2, new double[] {0, 0, 0, 1, 16, 1, 2});
        t.add("empty sync", 4, new double[] {0, 0, 0, 2, 64, 1, 6});
        t.add("8-byte put + sync", 2, new double[] {1, 8, 40, -1, -1, 1, -1}); // as the MPI engine counts
        assertTrue(t.counted());
        String[] lines = t.format(new int[] {2, 4}).split(System.lineSeparator());
        assertEquals(7, lines.length, String.join("\n", lines));
        assertEquals(java.util.List.of("empty", "sync", "messages", "0+1", "0+2"), java.util.List.of(lines[1].trim().split("\\s+")));
        assertEquals(java.util.List.of("bytes", "0+16", "0+64"), java.util.List.of(lines[2].trim().split("\\s+")));
        assertEquals(java.util.List.of("connections", "2", "6"), java.util.List.of(lines[3].trim().split("\\s+")));
        assertEquals(java.util.List.of("8-byte", "put", "+", "sync", "messages", "1+?", "-"), java.util.List.of(lines[4].trim().split("\\s+")));
        assertEquals(java.util.List.of("bytes", "8+?", "-"), java.util.List.of(lines[5].trim().split("\\s+")));
        assertEquals(java.util.List.of("connections", "-", "-"), java.util.List.of(lines[6].trim().split("\\s+")));
    }

    @Test
    void anEngineThatCountsNothingGetsOneLine() {
        SentTable t = new SentTable();
        t.add("empty sync", 2, new double[] {-1, -1, -1, -1, -1, -1, -1});
        assertFalse(t.counted());
        assertTrue(t.format(new int[] {2}).startsWith("sent per step: not counted"));
    }
}
