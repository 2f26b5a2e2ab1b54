/**
 * The example programs of {@code org.lpf4j.examples} timed beside their Java peers
 * ({@code Arrays.parallelSort}, a parallel-streams blocked multiply, JTransforms, a
 * parallel-streams CSR SpMV); used by {@code lpf bench --programs}. The peers are dependencies of
 * this module only.
 */
module org.lpf4j.bench.programs {
    requires transitive org.lpf4j.examples;
    requires org.lpf4j.coll;
    requires JTransforms;
    requires JLargeArrays;
    exports org.lpf4j.bench.programs;
}
