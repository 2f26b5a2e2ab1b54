/** BSP programs on the LPF core API and the collectives library, each with a sequential check of its result. */
module org.lpf4j.examples {
    requires transitive org.lpf4j.core;
    requires org.lpf4j.coll;
    requires org.lpf4j.cr;
    exports org.lpf4j.examples;
}
