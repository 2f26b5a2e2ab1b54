package org.lpf4j.spi.kit;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The JFR event {@code org.lpf4j.Section}: one process's part of an SPMD section (an
 * {@code exec}, {@code hook} or {@code rehook}), from the start of its SPMD function to its
 * return or throw. Engines emit it through {@link SuperstepRecorder#beginSection} and
 * {@link SuperstepRecorder#endSection}; it is public only so that the JDK's Flight Recorder can
 * instrument it from the core module.
 *
 * <p>Cost: nothing before Flight Recorder has started in the JVM; after that, one small object
 * per process and section (sections already start threads or ranks);
 * nothing is written while no recording has it enabled.
 */
@Name("org.lpf4j.Section")
@Label("Section")
@Category({"lpf4j"})
@Description("One process's part of an SPMD section (exec, hook, rehook)")
@StackTrace(false)
public final class SectionEvent extends Event {
    @Label("Engine")
    public String engine;

    @Label("Call")
    @Description("exec, hook or rehook")
    public String call;

    @Label("Pid")
    public int pid;

    @Label("Processes")
    public int nprocs;

    @Label("Supersteps")
    @Description("Syncs this process completed in the section")
    public long supersteps;

    @Label("Failed")
    @Description("Whether this process's SPMD function threw")
    public boolean failed;
}
