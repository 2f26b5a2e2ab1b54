package org.lpf4j.superstep;

import org.lpf4j.MsgAttr;
import org.lpf4j.spi.kit.CrossJvmObjects;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Combining puts across JVMs: the combiner is a Java object at the source, so the source rank
 * ships it (serialized, once per attribute and destination rank, ahead of the first put that uses
 * it there) and the destination keeps what each source rank shipped, by the source's id. The
 * operator must be {@link Serializable} (a lambda of a serializable functional interface is). One
 * table per section and rank, used by the thread that does the rank's exchange.
 *
 * <p>A destination is sent exactly the definitions its puts use, never the others this rank made.
 * Ids are recycled: once {@link #RECYCLE_AT} attributes are defined, a new one takes the id of the
 * one least recently used before the current superstep, and every destination is sent the new
 * definition before its next put with that id. A program that makes a new operator object for every
 * call (a lambda per reduction) thus holds at most that many definitions on either side, plus as
 * many as one superstep uses at once.
 *
 * <p>Cost: serialization on the first combining put with a new attribute; afterwards an identity
 * lookup per put and a bit test per put and destination at the sync; a recycling scans the ids
 * and clears one bit per destination.
 */
final class CombinerTable {
    /** Attributes defined before ids are recycled. */
    static final int RECYCLE_AT = 64;

    /** What crosses: the element size and the operator. */
    record Shipped(long elementSize, MsgAttr.ElementCombiner combiner) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    private final Map<MsgAttr, Integer> ids = new IdentityHashMap<>();
    /** By id: the attribute, its serialized definition, the superstep ({@link #epoch}) of its last put. */
    private MsgAttr[] attrOf = new MsgAttr[8];
    private final List<byte[]> definitions = new ArrayList<>();
    private long[] lastUse = new long[8];
    /** The supersteps packed so far: a put queued now has this epoch. */
    private long epoch;
    /** Per destination rank: the ids whose current definition it has. */
    private final BitSet[] known;
    /** Per destination rank: the ids whose definition this sync's count found it needs (cleared as they are packed). */
    private final BitSet[] shipping;
    private final int[] touched;
    private int touchedCount;
    /** Per source rank: the attributes it defined, by its ids. */
    private final List<List<MsgAttr>> received = new ArrayList<>();
    /** Per source rank, by its ids: why the id's latest definition failed to deserialize (null: it did not). */
    private final List<List<String>> failed = new ArrayList<>();

    private final CrossJvmObjects objects;

    /** @param objects how the operators other processes ship find their classes */
    CombinerTable(int p, CrossJvmObjects objects) {
        this.objects = objects;
        known = new BitSet[p];
        shipping = new BitSet[p];
        touched = new int[p];
        for (int q = 0; q < p; q++) {
            received.add(new ArrayList<>());
            failed.add(new ArrayList<>());
            known[q] = new BitSet();
            shipping[q] = new BitSet();
        }
    }

    /**
     * @return this rank's id for {@code attr}, defining it on first use (an identity lookup after that)
     * @throws IllegalArgumentException if the operator does not serialize (callers add the call that queued it)
     */
    int idOf(MsgAttr attr) {
        Integer existing = ids.get(attr);
        if (existing != null) {
            lastUse[existing] = epoch;
            return existing;
        }
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
        int id = recyclable();
        if (id < 0) {
            id = definitions.size();
            definitions.add(bytes);
            if (id == attrOf.length) {
                attrOf = Arrays.copyOf(attrOf, 2 * id);
                lastUse = Arrays.copyOf(lastUse, 2 * id);
            }
        } else {
            ids.remove(attrOf[id]);
            definitions.set(id, bytes);
            for (BitSet b : known) b.clear(id); // each destination gets the new definition before its next use
        }
        attrOf[id] = attr;
        lastUse[id] = epoch;
        ids.put(attr, id);
        return id;
    }

    /** @return the id least recently used before this superstep, once {@link #RECYCLE_AT} are defined; else -1 */
    private int recyclable() {
        int n = definitions.size(), best = -1;
        if (n < RECYCLE_AT) return -1;
        for (int id = 0; id < n; id++) {
            if (lastUse[id] < epoch && (best < 0 || lastUse[id] < lastUse[best])) best = id;
        }
        return best;
    }

    /** A sync's count begins: what an unfinished count marked is forgotten. */
    void startCount() {
        for (int k = 0; k < touchedCount; k++) shipping[touched[k]].clear();
        touchedCount = 0;
    }

    /**
     * @return whether destination {@code q} must be sent the definition of {@code id} in this sync,
     *         true once per id and destination (the count adds its bytes once)
     */
    boolean countDefinition(int q, int id) {
        if (known[q].get(id) || shipping[q].get(id)) return false;
        if (shipping[q].isEmpty()) touched[touchedCount++] = q;
        shipping[q].set(id);
        return true;
    }

    /** @return whether the definition of {@code id} is to be packed for {@code q} now (ahead of its first put there); then {@code q} knows it */
    boolean packDefinition(int q, int id) {
        if (!shipping[q].get(id)) return false;
        shipping[q].clear(id);
        known[q].set(id);
        return true;
    }

    /** This superstep's requests are packed: ids its puts used may be recycled from the next one on. */
    void packed() { epoch++; }

    /** @return the serialized definition of {@code id} */
    byte[] definition(int id) { return definitions.get(id); }

    /** @return the ids defined (at most {@link #RECYCLE_AT} unless one superstep used more at once) */
    int defined() { return definitions.size(); }

    /** @return the definitions kept of source {@code s}'s ids */
    int receivedFrom(int s) { return received.get(s).size(); }

    /**
     * Defines source {@code s}'s attribute {@code id} from its serialized form (replacing what the
     * id meant before). If it does not deserialize, the id is left undefined ({@link #attr} is
     * null, its puts are dropped) and {@link #whyUndefined} says why, at every later put with it,
     * since the source counts it as known here and does not send it again.
     *
     * @throws IllegalStateException if it does not deserialize (the class is missing or fails to load, or its
     *                               readObject throws), naming the source
     */
    void define(int s, int id, byte[] bytes) {
        List<MsgAttr> list = received.get(s);
        List<String> why = failed.get(s);
        while (list.size() <= id) list.add(null);
        while (why.size() <= id) why.add(null);
        Shipped shipped;
        try {
            shipped = (Shipped) objects.deserialize(bytes);
        } catch (IOException | ClassNotFoundException | RuntimeException | LinkageError e) {
            String message = "a combining put's operator from pid " + s + " does not deserialize: " + e;
            list.set(id, null);
            why.set(id, message);
            throw new IllegalStateException(message, e);
        }
        list.set(id, MsgAttr.combining(shipped.elementSize(), shipped.combiner()));
        why.set(id, null);
    }

    /** @return source {@code s}'s attribute {@code id}, or null if its definition did not arrive whole (see {@link #define}) */
    MsgAttr attr(int s, int id) {
        List<MsgAttr> list = received.get(s);
        return id < list.size() ? list.get(id) : null;
    }

    /** @return why source {@code s}'s attribute {@code id} is undefined here: its definition failed ({@link #define}) or never came */
    String whyUndefined(int s, int id) {
        List<String> why = failed.get(s);
        String failure = id < why.size() ? why.get(id) : null;
        return failure != null ? failure : "a combining put's operator from pid " + s + " (id " + id + ") never arrived";
    }
}
