/**
 * The LPF collectives library (broadcast, gather, scatter, allgather, alltoall, reduce,
 * allreduce, combine, allcombine) on the public LPF core API ({@code org.lpf4j}) only.
 */
module org.lpf4j.coll {
    requires transitive org.lpf4j.core;
    exports org.lpf4j.coll;
}
