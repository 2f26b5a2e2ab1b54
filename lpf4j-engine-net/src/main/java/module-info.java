/**
 * The net transport: lpf4j's superstep protocol ({@code org.lpf4j.superstep}) between JVMs over
 * TCP, with {@code java.nio} socket channels and no native library. Every connection proves the
 * job's key before a byte of data is accepted.
 */
module org.lpf4j.engine.net {
    requires transitive org.lpf4j.core;
    requires org.lpf4j.superstep;
    requires jdk.management;
    exports org.lpf4j.engine.net;

    provides org.lpf4j.spi.EngineProvider with org.lpf4j.engine.net.NetEngineProvider;
}
