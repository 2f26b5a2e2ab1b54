/**
 * BSPlib on the public LPF core API ({@code org.lpf4j} only): registration by address, buffered
 * and unbuffered put and get, and tagged messages, over any engine.
 */
module org.lpf4j.bsplib {
    requires transitive org.lpf4j.core;
    exports org.lpf4j.bsplib;
}
