/** BSP programs on the LPF core API, the collectives library and BSPlib, each with a sequential check of its result. */
module org.lpf4j.examples {
    requires transitive org.lpf4j.core;
    requires org.lpf4j.coll;
    requires org.lpf4j.cr;
    requires org.lpf4j.bsplib;
    exports org.lpf4j.examples;
    exports org.lpf4j.examples.bsplib;
}
