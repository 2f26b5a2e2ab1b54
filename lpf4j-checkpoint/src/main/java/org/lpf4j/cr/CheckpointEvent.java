package org.lpf4j.cr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The JFR event {@code org.lpf4j.Checkpoint}: one process's step of a checkpoint, with its
 * duration: {@code taken} (the copy of the declared state at the checkpoint point, which the
 * program waits for), {@code written} (the writer thread's write, while the program computes on),
 * {@code committed} (process 0's commit mark) and {@code restored} (a resume). Public only so that
 * Flight Recorder can instrument it.
 *
 * <p>Cost: created only when a checkpoint is taken, written, committed or restored; nothing at a
 * checkpoint point with none due.
 */
@Name("org.lpf4j.Checkpoint")
@Label("Checkpoint")
@Category({"lpf4j"})
@Description("A step of a coordinated checkpoint: taken, written, committed or restored")
@StackTrace(false)
public final class CheckpointEvent extends Event {
    @Label("Step")
    @Description("taken, written, committed, restored or failed (a write that failed)")
    public String step;

    @Label("Program")
    public String program;

    @Label("Pid")
    public int pid;

    @Label("Checkpoint")
    @Description("The checkpoint's sequence number")
    public long seq;

    @Label("Superstep")
    @Description("The superstep count when it was taken")
    public long superstep;

    @Label("Bytes")
    @DataAmount
    @Description("Bytes of this process's part")
    public long bytes;

    @Label("Where")
    public String where;

    CheckpointEvent() {}
}
