package org.lpf4j.superstep;

import org.lpf4j.spi.kit.CrossJvmObjects;

import java.io.IOException;

/**
 * A failed process's exception as bytes between JVMs, and back: what the end of a failed section
 * carries to pid 0 ({@link Transport#sendMessage}). Objects become bytes and back through
 * {@link CrossJvmObjects}, so the program's own exception types resolve in its class loader.
 */
final class Causes {
    private Causes() {}

    /** An exception that could not be serialized, carried as its text and stack trace. */
    static final class RemoteException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RemoteException(Throwable original) {
            super(original.toString());
            setStackTrace(original.getStackTrace());
        }
    }

    /** @return {@code t} as bytes, or its text and stack trace if it does not serialize */
    static byte[] bytes(Throwable t, int pid) {
        try {
            return CrossJvmObjects.serialize(t);
        } catch (IOException | RuntimeException e) {
            try {
                return CrossJvmObjects.serialize(new RemoteException(t));
            } catch (IOException e2) {
                throw new IllegalStateException("pid " + pid + ": cannot serialize even the text of " + t, e2);
            }
        }
    }

    /** @return the exception pid {@code from} sent as {@code bytes}, its classes resolved by {@code objects} */
    static Throwable of(byte[] bytes, int from, CrossJvmObjects objects) {
        try {
            Object o = objects.deserialize(bytes);
            return o instanceof Throwable t ? t : new IllegalStateException("pid " + from + " sent " + o);
        } catch (IOException | ClassNotFoundException | RuntimeException | LinkageError e) { // its readObject may throw anything
            return new IllegalStateException("pid " + from + " threw, but its exception did not deserialize: " + e, e);
        }
    }
}
