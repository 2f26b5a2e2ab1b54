package org.lpf4j.superstep;

import org.lpf4j.MsgAttr;
import org.lpf4j.spi.kit.CrossJvmObjects;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Combining puts across JVMs: the combiner is a Java object at the source, so the source rank
 * ships it (serialized, once per attribute and destination rank, ahead of the first put that uses
 * it) and the destination keeps what each source rank shipped, by the source's id. The operator
 * must be {@link Serializable} (a lambda of a serializable functional interface is). One table per
 * section and rank, used by the thread that does the rank's exchange.
 *
 * <p>Cost: serialization on the first combining put with a new attribute in a section; afterwards an
 * identity lookup per put and nothing per sync.
 */
final class CombinerTable {
    /** What crosses: the element size and the operator. */
    record Shipped(long elementSize, MsgAttr.ElementCombiner combiner) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    private final Map<MsgAttr, Integer> ids = new IdentityHashMap<>();
    private final List<byte[]> definitions = new ArrayList<>();
    /** Per destination rank: how many of this rank's ids it already knows. */
    private final int[] shippedTo;
    /** Per source rank: the attributes it defined, by its ids. */
    private final List<List<MsgAttr>> received = new ArrayList<>();

    private final CrossJvmObjects objects;

    /** @param objects how the operators other processes ship find their classes */
    CombinerTable(int p, CrossJvmObjects objects) {
        this.objects = objects;
        shippedTo = new int[p];
        for (int q = 0; q < p; q++) received.add(new ArrayList<>());
    }

    /**
     * @return this rank's id for {@code attr}, defining it on first use (an identity lookup after that)
     * @throws IllegalArgumentException if the operator does not serialize (callers add the call that queued it)
     */
    int idOf(MsgAttr attr) {
        Integer id = ids.get(attr);
        if (id != null) return id;
        MsgAttr.ElementCombiner op = attr.combiner();
        if (!(op instanceof Serializable)) {
            throw new IllegalArgumentException("a combining put to another JVM carries its operator there, but "
                    + op.getClass().getName() + " is not Serializable (use a serializable class or a lambda of a"
                    + " Serializable functional interface)");
        }
        byte[] bytes;
        try {
            bytes = CrossJvmObjects.serialize(new Shipped(attr.elementSize(), op));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("the operator of " + attr + " does not serialize: " + e, e);
        }
        int n = definitions.size();
        definitions.add(bytes);
        ids.put(attr, n);
        return n;
    }

    /** @return the definitions destination {@code q} still needs before a put with {@code id}: [from, to) */
    int knownBy(int q) { return shippedTo[q]; }

    /** Records that {@code q} now knows ids below {@code upTo}. */
    void shipped(int q, int upTo) { shippedTo[q] = Math.max(shippedTo[q], upTo); }

    /** @return the serialized definition of {@code id} */
    byte[] definition(int id) { return definitions.get(id); }

    /** Defines source {@code s}'s attribute {@code id} from its serialized form. */
    void define(int s, int id, byte[] bytes) {
        Shipped shipped;
        try {
            shipped = (Shipped) objects.deserialize(bytes);
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            throw new IllegalStateException("a combining put's operator from pid " + s + " does not deserialize: " + e, e);
        }
        List<MsgAttr> list = received.get(s);
        while (list.size() <= id) list.add(null);
        list.set(id, MsgAttr.combining(shipped.elementSize(), shipped.combiner()));
    }

    /** @return source {@code s}'s attribute {@code id}, or null if its definition did not arrive whole (see {@link #define}) */
    MsgAttr attr(int s, int id) {
        List<MsgAttr> list = received.get(s);
        return id < list.size() ? list.get(id) : null;
    }

    /** Copies the per-destination progress into {@code into} (to count a sync's bytes before packing it). */
    void progressInto(int[] into) { System.arraycopy(shippedTo, 0, into, 0, shippedTo.length); }
}
