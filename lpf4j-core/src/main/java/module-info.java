/**
 * The LPF core: the public API ({@code org.lpf4j}), the component system and what modules
 * implement ({@code org.lpf4j.spi}), the engine kit every engine is written with
 * ({@code org.lpf4j.spi.kit}, for engines only), the optional checking layer
 * ({@code org.lpf4j.debug}), and the core's own boot, coll and cr modules. Contains no engine:
 * engines are modules (e.g. {@code org.lpf4j.engine.threads}) found by ServiceLoader. Depends on
 * nothing outside the JDK (jdk.jfr for its Flight Recorder events, {@code org.lpf4j.spi.kit.SuperstepEvent}
 * and {@code SectionEvent}).
 */
module org.lpf4j.core {
    requires jdk.jfr;

    exports org.lpf4j;
    exports org.lpf4j.spi;
    exports org.lpf4j.spi.kit;
    exports org.lpf4j.spi.boot;
    exports org.lpf4j.debug;

    uses org.lpf4j.spi.EngineProvider;
    uses org.lpf4j.spi.BootModule;
    uses org.lpf4j.spi.CollModule;
    uses org.lpf4j.spi.CrModule;

    provides org.lpf4j.spi.BootModule with org.lpf4j.builtin.LocalBoot, org.lpf4j.builtin.EnvBoot;
    provides org.lpf4j.spi.CollModule with org.lpf4j.builtin.CostModelColl;
    provides org.lpf4j.spi.CrModule with org.lpf4j.builtin.NoneCr;
}
