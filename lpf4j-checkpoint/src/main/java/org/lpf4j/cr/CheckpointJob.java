package org.lpf4j.cr;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which job a {@link Checkpoints} object's checkpoints belong to (program, p, this process, the
 * run) and where they go: the fields that identify a checkpoint's job, the check that a
 * checkpoint belongs to this job, and the JFR events of its steps. Immutable; cheap.
 *
 * @param program the program's name (see {@link Checkpoints#init})
 * @param p       the processes
 * @param pid     this process
 * @param store   where checkpoints go
 * @param runId   this run of the job ("" where runs are not told apart)
 */
record CheckpointJob(String program, int p, int pid, CheckpointStore store, String runId) {

    /** @return the fields that say which job made a checkpoint (of a part's header and of a commit mark), mutable */
    Map<String, String> fields() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("program", program);
        f.put("nprocs", Integer.toString(p));
        f.put("lpf4j", PartFormat.LPF4J_VERSION);
        return f;
    }

    /** @return why a checkpoint with these job fields does not belong to this job, or null if it does */
    String refusal(Map<String, String> d) {
        if (d.isEmpty()) return "its commit mark cannot be read";
        List<String> differ = new ArrayList<>();
        if (!program.equals(d.get("program"))) differ.add("program '" + d.get("program") + "' (this run: '" + program + "')");
        if (!Integer.toString(p).equals(d.get("nprocs"))) differ.add("p = " + d.get("nprocs") + " (this run: " + p + ")");
        if (!PartFormat.LPF4J_VERSION.equals(d.get("lpf4j"))) {
            differ.add("lpf4j " + d.get("lpf4j") + " (this run: " + PartFormat.LPF4J_VERSION + ")");
        }
        return differ.isEmpty() ? null : "it was made by " + String.join(", ", differ);
    }

    /** @return the fields of checkpoint {@code seq}'s commit mark, empty if it cannot be read */
    Map<String, String> commitMark(long seq) {
        String text = store.description(seq);
        return text == null ? Map.of() : PartFormat.fields(text);
    }

    /** Ends {@code e} and records it as this process's {@code step} of checkpoint {@code seq}, if JFR wants it. */
    void emit(CheckpointEvent e, String step, long seq, long superstep, long bytes) {
        e.end();
        if (!e.shouldCommit()) return;
        e.step = step;
        e.program = program;
        e.pid = pid;
        e.seq = seq;
        e.superstep = superstep;
        e.bytes = bytes;
        e.where = store.where();
        e.commit();
    }
}
