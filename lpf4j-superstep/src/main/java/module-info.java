/**
 * The superstep protocol between JVMs, written once over a transport SPI
 * ({@link org.lpf4j.superstep.Transport}): the round every sync makes, the exchange of the
 * requests, the packed request layout, the combining operators, the failure causes carried
 * between JVMs and the section's end, and the skeleton of an engine built on it (job control, the
 * start-up agreement, the protocol's parameters). Engines whose processes live in several JVMs
 * (mpi, net, and the node level of hybrid) build on it; it depends on nothing but the core module.
 */
module org.lpf4j.superstep {
    requires transitive org.lpf4j.core;
    exports org.lpf4j.superstep;
    exports org.lpf4j.superstep.shm to org.lpf4j.engine.net;
}
