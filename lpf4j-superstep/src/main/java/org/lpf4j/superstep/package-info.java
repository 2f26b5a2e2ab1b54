/**
 * The superstep protocol between JVMs, written once over a {@link org.lpf4j.superstep.Transport}
 * (the SPI a carrier implements: MPI, TCP sockets, ...). For engines, not for programs.
 *
 * <h2>A sync</h2>
 * Every sync starts with the <em>round</em>: an allreduce (OR) of one word per process (I queued
 * something / I am ending / I am in rehook / a bound on how many processes I send to); an empty
 * superstep costs that allreduce alone. The receivers must then learn which processes pack
 * requests for them, and how many bytes. In a section of at most
 * {@link org.lpf4j.superstep.ProtocolSettings#pairsInRoundUpTo} ranks every rank that queued
 * requests sends each destination its packed stream (length first; the first
 * {@link org.lpf4j.superstep.Transport#eagerBytes()} bytes as one message) <em>before</em> the
 * round, which also carries the p × p bits of who sends to whom (each rank writes its own row, so
 * the OR is the matrix): the streams travel while the round runs. In larger sections a sync with
 * messages continues after the round with an all-to-all of one long per pair or, in a sparse
 * superstep, a nonblocking consensus among the senders
 * ({@link org.lpf4j.superstep.ProtocolSettings#sparse}), and the streams follow.
 *
 * <h2>The exchange</h2>
 * One packed stream per pair ({@code PackedHeader}: every request's header and the payload of
 * puts below 16 KiB to other ranks, combining ones to itself too; a plain put to itself carries
 * no payload and is copied once from its source when applied; a combining operator travels once per destination, then as an id,
 * {@code CombinerTable}), one message per large put (sent from the user's native segment in
 * place) and one reply stream per pair for gets. Gets are served before anything is written. The
 * destination applies all writes to its own memory: a large put is received straight into the
 * destination only if its area overlaps no other such receive and no area this rank still sends
 * from; every other write is applied after every transfer completed, in the order (source pid,
 * queue order). So <b>write conflicts end as a serialisation</b> with no locking. Heap segments
 * sent to other ranks are copied through native buffers ({@link org.lpf4j.superstep.NativeBuffer}).
 * In the sources: the round is {@code Round}, the exchange {@code Exchange}, which runs the sending
 * side ({@code Packer}) and the receiving side ({@code Delivery}) over one buffer layout
 * ({@code ExchangeBuffers}), and the end of a section {@code SectionEnd}.
 *
 * <h2>Failure</h2>
 * A process whose SPMD function returns or throws contributes "ending" to the next round; every
 * process then learns everyone's status in a second allreduce (MAX): the section is over, syncs
 * elsewhere throw {@link org.lpf4j.FatalException}, and the exceptions travel to pid 0 as small
 * messages (serialized, resolved in the program's class loader; as text if they do not
 * serialize), so {@code exec} throws them. After a failed section a last round carries what
 * processes threw afterwards. No process ever waits for one that left. A transport that bounds
 * its waits reports processes that did not arrive ({@link org.lpf4j.superstep.Transport.Stopped});
 * the section then fails without further collectives. {@code rehook} starts with a round, so a
 * mismatch with a sync fails both sides instead of mixing collectives.
 *
 * <h2>The engine skeleton</h2>
 * What every multi-JVM engine does beside the sync is written here once too:
 * {@link org.lpf4j.superstep.JobRuntime} (rank 0's root context and job control: the
 * {@code EXEC}/{@code SPLIT}/{@code STOP} commands and the other ranks' serve loop, the one
 * runtime per JVM, each process's share of processors), {@link org.lpf4j.superstep.StartupAgreement}
 * (every rank chose the same modules and settings), the section probe and nested {@code exec}
 * ({@link org.lpf4j.superstep.SuperstepContext}) and the protocol's parameters
 * ({@link org.lpf4j.superstep.ProtocolParameters}, declared under each engine's prefix). An engine
 * over a new carrier is a {@link org.lpf4j.superstep.Transport}, a context naming its child
 * sections, and a runtime saying how a command travels and how its processes find each other.
 *
 * <h2>Layered engines</h2>
 * {@link org.lpf4j.superstep.NodeExchange} runs the same sync for the requests of several
 * processes per rank ({@link org.lpf4j.superstep.NodeRequests}): the hybrid engine's node level.
 */
package org.lpf4j.superstep;
