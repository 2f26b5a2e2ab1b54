package org.lpf4j.cr;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The state a {@link Checkpoints} object keeps, in the order it was declared, and its translation
 * to and from a part's entries: segments are copied as they are, {@link Checkpoints.Value}s go
 * through Java serialisation. Not thread-safe (one per process).
 */
final class Declarations {
    /** One declared piece of state: a segment or a value. */
    private record Entry(String name, MemorySegment segment, Checkpoints.Value<?> value) {
        String kind() { return segment != null ? "segment" : "value"; }
    }

    private final List<Entry> entries = new ArrayList<>();

    /** Adds a segment ({@code value} null) or a value ({@code segment} null), checking the name. */
    void declare(String name, MemorySegment segment, Checkpoints.Value<?> value) {
        if (name == null || name.isBlank() || name.contains(":") || name.contains("\n")) {
            throw new IllegalArgumentException("Checkpoints: name '" + name + "' must be non-blank, without ':' or a line break");
        }
        for (Entry e : entries) {
            if (e.name.equals(name)) throw new IllegalArgumentException("Checkpoints: '" + name + "' is declared twice");
        }
        entries.add(new Entry(name, segment, value));
    }

    /** @return each declaration's data now: the segment itself, or the value serialised (allocates) */
    MemorySegment[] data() {
        MemorySegment[] data = new MemorySegment[entries.size()];
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            data[i] = e.segment != null ? e.segment : MemorySegment.ofArray(serialise(e.value));
        }
        return data;
    }

    /** @return the part entries that describe {@code data} (from {@link #data()}) */
    List<PartFormat.Entry> describe(MemorySegment[] data) {
        List<PartFormat.Entry> declared = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            declared.add(new PartFormat.Entry(e.name, e.kind(), data[i].byteSize()));
        }
        return declared;
    }

    /** @return how a part's entries differ from these declarations (empty: it fits) */
    List<String> differences(PartFormat.Decoded part) {
        List<String> differ = new ArrayList<>();
        if (part.entries().size() != entries.size()) {
            differ.add(part.entries().size() + " declarations (this run: " + entries.size() + ")");
        }
        for (int i = 0; i < Math.min(entries.size(), part.entries().size()); i++) {
            Entry mine = entries.get(i);
            PartFormat.Entry theirs = part.entries().get(i);
            String kind = mine.kind();
            if (!mine.name.equals(theirs.name()) || !kind.equals(theirs.kind())) {
                differ.add("declaration " + i + " is " + theirs.kind() + " '" + theirs.name() + "' (this run: " + kind + " '"
                        + mine.name + "')");
            } else if (mine.segment != null && mine.segment.byteSize() != theirs.length()) {
                differ.add("segment '" + mine.name + "' has " + theirs.length() + " bytes (this run: "
                        + mine.segment.byteSize() + ")");
            }
        }
        return differ;
    }

    /** Writes a fitting part's data back: segments in place, values replaced. */
    void restore(PartFormat.Decoded part) {
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            MemorySegment data = part.data(i);
            if (e.segment != null) {
                MemorySegment.copy(data, 0, e.segment, 0, data.byteSize());
            } else {
                restoreValue(e.value, data);
            }
        }
    }

    private static byte[] serialise(Checkpoints.Value<?> v) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(v.value);
        } catch (IOException e) {
            throw new IllegalStateException("Checkpoints: value '" + v.name + "' (" + v.value.getClass().getName()
                    + ") cannot be serialised: " + e, e);
        }
        return bytes.toByteArray();
    }

    @SuppressWarnings("unchecked")
    private static <T extends Serializable> void restoreValue(Checkpoints.Value<T> v, MemorySegment data) {
        ClassLoader loader = v.type.getClassLoader();
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(data.toArray(ValueLayout.JAVA_BYTE))) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
                try {
                    return Class.forName(desc.getName(), false, loader);
                } catch (ClassNotFoundException e) {
                    return super.resolveClass(desc);
                }
            }
        }) {
            v.value = (T) v.type.cast(in.readObject());
        } catch (IOException | ClassNotFoundException | ClassCastException e) {
            throw new IllegalStateException("Checkpoints.resume: value '" + v.name + "' cannot be read back as a "
                    + v.type.getName() + ": " + e, e);
        }
    }
}
