package org.lpf4j.superstep;

import org.junit.jupiter.api.Test;
import org.lpf4j.spi.kit.CrossJvmObjects;

import java.io.ObjectInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A failed process's exception crossing to pid 0: whatever its deserialization throws, pid 0 gets
 * an exception that names the sender and says why, so that the section's failure still reaches
 * {@code exec} (before, a readObject that threw an unchecked exception escaped pid 0's end of the
 * section).
 */
class CausesTest {
    /** An exception whose deserialization fails with an unchecked exception. */
    static final class Unreadable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unreadable() { super("thrown at pid 3"); }

        private void readObject(ObjectInputStream in) {
            throw new IllegalArgumentException("refuses to be read");
        }
    }

    @Test
    void anExceptionWhoseDeserializationThrowsBecomesOneThatSaysSo() {
        byte[] bytes = Causes.bytes(new Unreadable(), 3);
        Throwable t = Causes.of(bytes, 3, CrossJvmObjects.forCurrentThread());
        assertEquals(IllegalStateException.class, t.getClass(), t.toString());
        assertTrue(t.getMessage().contains("pid 3 threw, but its exception did not deserialize"), t.getMessage());
        assertTrue(t.getMessage().contains("refuses to be read"), t.getMessage());
    }

    @Test
    void anExceptionThatDeserializesArrivesWhole() {
        Throwable t = Causes.of(Causes.bytes(new IllegalStateException("plain"), 1), 1, CrossJvmObjects.forCurrentThread());
        assertEquals(IllegalStateException.class, t.getClass());
        assertEquals("plain", t.getMessage());
    }
}
