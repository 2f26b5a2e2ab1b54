package org.lpf4j.superstep;

import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.Parameters;
import org.lpf4j.spi.kit.BulkCopy;

import java.util.List;

/**
 * The superstep protocol's parameters, declared once for every transport: each engine built on
 * the protocol declares them under its own prefix ({@code lpf.engine.mpi.}, {@code lpf.engine.net.},
 * ...), with its own default for {@code pairsInRoundUpTo} (what its round costs decides it). The
 * rules of the three are {@link ProtocolSettings}'s:
 *
 * <ul>
 *   <li>{@code <prefix>pairsInRoundUpTo}: in sections of at most this many processes a sync with
 *       messages sends its packed streams <em>before</em> the round, which also carries the p × p
 *       bits of who sends to whom; at most 256 (a round of 1025 longs); 0: never.</li>
 *   <li>{@code <prefix>countExchange}: above that, how a superstep with messages exchanges its
 *       counts: {@code auto} (the default) chooses per superstep, the sparse way (a nonblocking
 *       consensus among the senders: O(destinations + log p) messages per process) in sections of
 *       at least {@code sparseFrom} processes when every process sends to at most a quarter of
 *       the others, else the dense way (an all-to-all of one long per pair); {@code sparse} and
 *       {@code dense} force one.</li>
 *   <li>{@code <prefix>sparseFrom}: the smallest section in which {@code auto} may take the sparse way.</li>
 * </ul>
 * Every rank of a job must use the same values (the start-up agreement, {@link StartupAgreement},
 * compares {@link #agreementText}). Immutable; declaring costs three registrations, once per engine.
 *
 * @param pairsInRoundUpTo {@code <prefix>pairsInRoundUpTo}
 * @param countExchange    {@code <prefix>countExchange}
 * @param sparseFrom       {@code <prefix>sparseFrom}
 */
public record ProtocolParameters(Parameters.Parameter<Integer> pairsInRoundUpTo, Parameters.Parameter<String> countExchange,
                                 Parameters.Parameter<Integer> sparseFrom) {
    /**
     * Declares the protocol's parameters of one engine in the global registry.
     *
     * @param prefix       the engine's prefix, e.g. {@code "lpf.engine.mpi."}
     * @param pairsDefault the engine's default of {@code pairsInRoundUpTo}
     * @param round        what the round is on this engine, for the descriptions (e.g. {@code "MPI_Allreduce"})
     * @param dense        what the dense way is on this engine, for the descriptions (e.g. {@code "MPI_Alltoall"})
     * @return the parameters
     */
    public static ProtocolParameters declare(String prefix, int pairsDefault, String round, String dense) {
        return declare(prefix, pairsDefault, 64, round, dense);
    }

    /**
     * As {@link #declare(String, int, String, String)}, with the engine's default of {@code sparseFrom}.
     *
     * @param sparseFromDefault the engine's default of {@code sparseFrom}
     */
    public static ProtocolParameters declare(String prefix, int pairsDefault, int sparseFromDefault, String round, String dense) {
        ParameterRegistry r = ParameterRegistry.global();
        return new ProtocolParameters(
                r.integer(prefix + "pairsInRoundUpTo", pairsDefault, 0, 256,
                        "up to this many processes, streams go out before a sync's " + round + ", which carries who sends to whom (0: never)"),
                r.choice(prefix + "countExchange", "auto", List.of("auto", "sparse", "dense"),
                        "how message counts are exchanged above pairsInRoundUpTo: auto (per superstep), sparse (nonblocking"
                                + " consensus), dense (" + dense + ")"),
                r.integer(prefix + "sparseFrom", sparseFromDefault, 1, 1 << 24,
                        "smallest section (processes) in which countExchange=auto may exchange counts the sparse way"));
    }

    /** @return the three parameters, for an engine provider's list */
    public List<Parameters.Parameter<?>> list() { return List.of(pairsInRoundUpTo, countExchange, sparseFrom); }

    /** @return the settings from the parameters' current values, copying with {@code lpf.copy}'s */
    public ProtocolSettings resolve() {
        return new ProtocolSettings(pairsInRoundUpTo.get(), countExchange.get(), sparseFrom.get(), BulkCopy.resolve());
    }

    /**
     * @param settings settings resolved from these parameters
     * @return the text the ranks of a job compare: {@code key=value} of each, comma-separated
     */
    public String agreementText(ProtocolSettings settings) {
        return pairsInRoundUpTo.key() + "=" + settings.pairsInRoundUpTo() + ", " + countExchange.key() + "="
                + settings.countExchange() + ", " + sparseFrom.key() + "=" + settings.sparseFrom();
    }
}
