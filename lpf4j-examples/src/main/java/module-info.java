/** BSP programs on the LPF core API, each with a sequential check of its result. */
module org.lpf4j.examples {
    requires transitive org.lpf4j.core;
    exports org.lpf4j.examples;
}
