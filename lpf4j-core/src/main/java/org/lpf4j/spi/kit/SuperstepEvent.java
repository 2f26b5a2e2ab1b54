package org.lpf4j.spi.kit;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The JFR event {@code org.lpf4j.Superstep}: one process's {@code sync}, its duration the time
 * the process spent inside it (waiting for the others included). Engines emit it through
 * {@link SuperstepRecorder}, never directly; it is public only so that the JDK's Flight Recorder
 * can instrument it from the core module.
 *
 * <p>Cost: none while no recording has it enabled (the recorder checks before touching it);
 * with a recording on, one commit per sync plus the engine's count of what it queued.
 */
@Name("org.lpf4j.Superstep")
@Label("Superstep")
@Category({"lpf4j"})
@Description("One process's sync: what it queued and received, and how long it stayed in the sync")
@StackTrace(false)
public final class SuperstepEvent extends Event {
    @Label("Engine")
    public String engine;

    @Label("Pid")
    public int pid;

    @Label("Processes")
    public int nprocs;

    @Label("Superstep")
    @Description("The superstep this sync ended (0 for the first sync of the section)")
    public long superstep;

    @Label("Messages Out")
    @Description("Requests (puts and gets) this process queued in the superstep")
    public long messagesOut;

    @Label("Bytes Out")
    @Description("Bytes of the requests (puts and gets) this process queued in the superstep")
    @DataAmount
    public long bytesOut;

    @Label("Messages In")
    @Description("Puts of non-zero size written into this process's memory at the sync; -1 if the engine does not count them")
    public long messagesIn;

    @Label("Bytes In")
    @Description("Bytes those puts wrote into this process's memory; -1 if the engine does not count them")
    @DataAmount
    public long bytesIn;

    @Label("Data Messages")
    @Description("Point-to-point messages of the exchange this process sent to other JVMs in the sync (streams of requests, large puts, replies); -1 if the engine does not count them (threads)")
    public long dataMessages;

    @Label("Payload Bytes")
    @Description("Put data and get replies in those messages; -1 if not counted")
    @DataAmount
    public long payloadBytes;

    @Label("Header Bytes")
    @Description("The rest of those messages: request headers, stream lengths, padding, operator definitions; -1 if not counted")
    @DataAmount
    public long headerBytes;

    @Label("Meta Messages")
    @Description("Messages of the sync's collectives (round, count exchange or consensus, barrier steps); -1 if not counted (mpi: inside libmpi)")
    public long metaMessages;

    @Label("Meta Bytes")
    @Description("Bytes of those messages; -1 if not counted")
    @DataAmount
    public long metaBytes;

    @Label("Collectives")
    @Description("Collective operations the process entered in the sync (rounds, count exchanges); -1 if not counted")
    public long collectives;

    @Label("Connections")
    @Description("Connections this process holds open at the end of the sync; -1 if not applicable (threads, mpi)")
    public long connections;

    @Label("Connections In JVM")
    @Description("Of those, connections whose frames go through rings in this JVM's memory (a peer of the same JVM); -1 if not counted")
    public long connectionsInJvm;

    @Label("Connections Shared Memory")
    @Description("Of those, connections whose frames go through a shared-memory file (a peer of the same host); -1 if not counted")
    public long connectionsShm;

    @Label("Connections TCP")
    @Description("Of those, connections whose frames go through TCP; -1 if not counted")
    public long connectionsTcp;
}
