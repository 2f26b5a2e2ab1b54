package org.lpf4j.boot;

import org.junit.jupiter.api.Test;
import org.lpf4j.spi.Parameters;
import org.lpf4j.spi.boot.BootEnvironment;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The names launchers set ({@link BootEnvironment}) are the environment spellings of the tcp
 * boot's own parameters, so that a JVM started with them joins its job.
 */
class BootEnvironmentTest {
    @Test
    void eachNameIsTheEnvironmentSpellingOfATcpParameter() {
        assertEquals(Parameters.toEnvironmentName("lpf.boot.tcp.address"), BootEnvironment.TCP_ADDRESS);
        assertEquals(Parameters.toEnvironmentName("lpf.boot.tcp.key"), BootEnvironment.TCP_KEY);
        assertEquals(Parameters.toEnvironmentName("lpf.boot.tcp.rank"), BootEnvironment.TCP_RANK);
        assertEquals(Parameters.toEnvironmentName("lpf.boot.tcp.size"), BootEnvironment.TCP_SIZE);
        assertEquals(Parameters.toEnvironmentName("lpf.boot.tcp.serve"), BootEnvironment.TCP_SERVE);
    }
}
