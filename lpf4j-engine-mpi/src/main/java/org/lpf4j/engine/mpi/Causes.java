package org.lpf4j.engine.mpi;

import org.lpf4j.spi.kit.CrossJvmObjects;

import java.io.IOException;
import java.io.Serializable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Ships a process's exception to pid 0 at the end of a failed section, and length-prefixed bytes
 * between ranks (the SPMD function and the symbols at {@code exec}); objects become bytes and back
 * through {@link CrossJvmObjects}.
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

    /** Sends {@code t} (or its text, if it does not serialize) to pid 0. */
    static void send(Mpi mpi, Throwable t, int pid, long comm, int tag) {
        byte[] bytes;
        try {
            bytes = CrossJvmObjects.serialize(t);
        } catch (IOException | RuntimeException e) {
            try {
                bytes = CrossJvmObjects.serialize(new RemoteException(t));
            } catch (IOException e2) {
                throw new IllegalStateException("pid " + pid + ": cannot serialize even the text of " + t, e2);
            }
        }
        sendBytes(mpi, bytes, 0, tag, comm);
    }

    /** @return the exception pid {@code from} sent, its classes resolved by {@code objects} */
    static Throwable receive(Mpi mpi, int from, long comm, int tag, CrossJvmObjects objects) {
        byte[] bytes = receiveBytes(mpi, from, tag, comm);
        try {
            Object o = objects.deserialize(bytes);
            return o instanceof Throwable t ? t : new IllegalStateException("pid " + from + " sent " + o);
        } catch (IOException | ClassNotFoundException e) {
            return new IllegalStateException("pid " + from + " threw, but its exception did not deserialize: " + e, e);
        }
    }

    /** Sends a length, then the bytes (blocking). */
    static void sendBytes(Mpi mpi, byte[] bytes, int dest, int tag, long comm) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment len = a.allocate(8);
            len.set(ValueLayout.JAVA_LONG, 0, bytes.length);
            mpi.sendBytes(len, 8, dest, tag, comm);
            if (bytes.length > 0) mpi.sendBytes(a.allocateFrom(ValueLayout.JAVA_BYTE, bytes), bytes.length, dest, tag, comm);
        }
    }

    /** Receives what {@link #sendBytes} sent. */
    static byte[] receiveBytes(Mpi mpi, int from, int tag, long comm) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment len = a.allocate(8);
            mpi.recvBytes(len, 8, from, tag, comm);
            int n = Math.toIntExact(len.get(ValueLayout.JAVA_LONG, 0));
            if (n == 0) return new byte[0];
            MemorySegment buf = a.allocate(n);
            mpi.recvBytes(buf, n, from, tag, comm);
            return buf.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** @return whether {@code o} is meant to be serializable at all */
    static boolean serializable(Object o) { return o instanceof Serializable; }
}
