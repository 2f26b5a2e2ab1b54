package org.lpf4j.engine.threads;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With a Flight Recorder recording on, every sync of a threads-engine section writes an
 * {@code org.lpf4j.Superstep} event with what the process queued and received, and every process
 * an {@code org.lpf4j.Section} event.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FlightRecorderEventsTest {

    @Test
    void aRecordingHoldsOneSuperstepEventPerSyncAndOneSectionEventPerProcess(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("run.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("org.lpf4j.Superstep").withoutThreshold();
            recording.enable("org.lpf4j.Section").withoutThreshold();
            recording.start();
            ThreadsEngine.root().exec(2, ctx -> {
                int other = 1 - ctx.pid();
                MemorySegment data = Arena.ofAuto().allocate(2048);
                ctx.resizeMemoryRegister(1);
                ctx.resizeMessageQueue(8);
                ctx.sync();                                           // superstep 0
                Memslot slot = ctx.registerGlobal(data);
                ctx.sync();                                           // superstep 1
                for (int k = 0; k < 3; k++) ctx.put(slot, 8 * k, other, slot, 64 + 8 * k, 8);
                ctx.sync();                                           // superstep 2: 3 puts of 8 bytes each way
                ctx.put(slot, 0, other, slot, 1024, 1000);            // read from its source during the sync
                ctx.get(other, slot, 0, slot, 100, 16);
                ctx.sync();                                           // superstep 3
                ctx.deregister(slot);
            });
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        List<RecordedEvent> supersteps = events.stream()
                .filter(e -> e.getEventType().getName().equals("org.lpf4j.Superstep") && e.getInt("nprocs") == 2).toList();
        for (int pid = 0; pid < 2; pid++) {
            for (long s = 0; s < 4; s++) {
                RecordedEvent e = only(supersteps, pid, s);
                assertEquals("threads", e.getString("engine"));
                long[] expected = s == 2 ? new long[] {3, 24, 3, 24}
                        : s == 3 ? new long[] {2, 1016, 1, 1000}
                        : new long[] {0, 0, 0, 0};
                assertEquals(expected[0], e.getLong("messagesOut"), "messages out, pid " + pid + " superstep " + s);
                assertEquals(expected[1], e.getLong("bytesOut"), "bytes out, pid " + pid + " superstep " + s);
                assertEquals(expected[2], e.getLong("messagesIn"), "messages in, pid " + pid + " superstep " + s);
                assertEquals(expected[3], e.getLong("bytesIn"), "bytes in, pid " + pid + " superstep " + s);
                for (String f : new String[] {"dataMessages", "payloadBytes", "headerBytes", "metaMessages", "metaBytes", "collectives",
                        "connections", "connectionsInJvm", "connectionsShm", "connectionsTcp"}) {
                    assertEquals(-1, e.getLong(f), f + ": one JVM sends no messages, so the threads engine counts none");
                }
                assertFalse(e.getDuration().isNegative());
            }
        }
        List<RecordedEvent> sections = events.stream()
                .filter(e -> e.getEventType().getName().equals("org.lpf4j.Section") && e.getInt("nprocs") == 2).toList();
        assertEquals(2, sections.size(), "section events: " + sections);
        for (RecordedEvent e : sections) {
            assertEquals("exec", e.getString("call"));
            assertEquals("threads", e.getString("engine"));
            assertEquals(4, e.getLong("supersteps"));
            assertFalse(e.getBoolean("failed"));
        }
        assertTrue(sections.stream().anyMatch(e -> e.getInt("pid") == 0));
        assertTrue(sections.stream().anyMatch(e -> e.getInt("pid") == 1));
    }

    private static RecordedEvent only(List<RecordedEvent> events, int pid, long superstep) {
        List<RecordedEvent> match = events.stream()
                .filter(e -> e.getInt("pid") == pid && e.getLong("superstep") == superstep).toList();
        assertEquals(1, match.size(), "superstep events of pid " + pid + " superstep " + superstep + ": " + events);
        return match.getFirst();
    }
}
