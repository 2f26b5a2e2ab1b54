package org.lpf4j.superstep;

import org.lpf4j.Args;
import org.lpf4j.Spmd;
import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.kit.CrossJvmObjects;

import java.io.IOException;
import java.io.NotSerializableException;
import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a root {@code exec} of a multi-JVM engine ships to every other process of the section: the
 * SPMD function, the symbols and rank 0's programmatic parameter settings, serialized once by rank
 * 0 and read back in each process's JVM through the class loader of the thread that serves the
 * sections (it knows the program). The other JVMs adopt the settings ({@code RankZeroSettings}),
 * so that a program's {@code Parameters.set} before its {@code exec} applies to every process, as
 * the launcher's {@code --param} does.
 *
 * @param spmd     the SPMD function
 * @param symbols  the symbols of {@code args} (input and output stay at pid 0)
 * @param settings rank 0's programmatic settings at the {@code exec}, key to text
 * @param jvm      the JVM they come from ({@code RankZeroSettings.JVM})
 */
public record Shipment(Spmd spmd, List<Object> symbols, Map<String, String> settings, String jvm) implements Serializable {
    private static final long serialVersionUID = 1L;

    /**
     * @param p      the processes asked for, for messages
     * @param engine the engine's name, for messages
     * @return the bytes of {@code spmd} and {@code args}' symbols
     * @throws IllegalArgumentException naming what does not serialize and what to do instead
     */
    public static byte[] ship(int p, Spmd spmd, Args args, String engine) {
        try {
            return CrossJvmObjects.serialize(new Shipment(spmd, new ArrayList<>(args.symbols()),
                    new TreeMap<>(ParameterRegistry.global().settings()), RankZeroSettings.JVM));
        } catch (NotSerializableException e) {
            throw new IllegalArgumentException("exec(p=" + p + "): the " + engine + " engine ships the SPMD function and the"
                    + " symbols to every process, but " + e.getMessage() + " is not serializable (SPMD function "
                    + spmd.getClass().getName() + "); use a named class implementing Spmd, or a lambda whose captured values"
                    + " are serializable", e);
        } catch (IOException e) {
            throw new IllegalArgumentException("exec(p=" + p + "): cannot serialize the SPMD function " + spmd.getClass().getName()
                    + " or the symbols: " + e, e);
        }
    }

    /**
     * @param payload what {@link #ship} made
     * @param rank    this process, for the message
     * @return the shipment; if it cannot be read, one whose function throws saying why (so the
     *         section fails at every process, with the reason at pid 0)
     */
    public static Shipment unship(byte[] payload, int rank) {
        try {
            return (Shipment) CrossJvmObjects.forCurrentThread().deserialize(payload);
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            IllegalStateException why = new IllegalStateException("rank " + rank + " could not read the shipped SPMD function"
                    + " (is the class path the same on every rank?): " + e, e);
            return new Shipment(ctx -> { throw why; }, List.of(), Map.of(), "");
        }
    }

    /** @return the arguments of a process other than pid 0: the symbols, no input or output */
    public Args args() { return symbols.isEmpty() ? Args.NONE : new Args(MemorySegment.NULL, MemorySegment.NULL, symbols); }
}
