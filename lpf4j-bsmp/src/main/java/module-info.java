/**
 * Bulk synchronous message passing (BSMP) on the public LPF core API ({@code org.lpf4j} only):
 * tagged messages sent in one superstep and moved out of a receive queue in the next.
 */
module org.lpf4j.bsmp {
    requires transitive org.lpf4j.core;
    exports org.lpf4j.bsmp;
}
