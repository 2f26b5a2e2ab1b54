/**
 * Coordinated checkpoint/restart for BSP programs on the public LPF core API: the program
 * declares what must survive and calls a checkpoint point at superstep boundaries
 * ({@link org.lpf4j.cr.Checkpoints}); the {@code cr} framework's modules {@code files} and
 * {@code memory} keep the checkpoints; {@link org.lpf4j.cr.Restarts} runs a section again from the
 * last complete one after a failure.
 */
module org.lpf4j.cr {
    requires transitive org.lpf4j.core;
    requires jdk.jfr;
    exports org.lpf4j.cr;

    provides org.lpf4j.spi.CrModule with org.lpf4j.cr.FilesCr, org.lpf4j.cr.MemoryCr;
}
