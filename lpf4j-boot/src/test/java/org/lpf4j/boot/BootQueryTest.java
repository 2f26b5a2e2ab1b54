package org.lpf4j.boot;

import org.lpf4j.boot.pmix.PmixBoot;
import org.lpf4j.boot.tcp.TcpBoot;
import org.lpf4j.boot.tcp.TcpSettings;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;
import org.lpf4j.spi.ParameterRegistry;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The tcp and pmix modules decline with a reason naming what is missing, and are selected by priority. */
class BootQueryTest {
    private final Map<String, String> env = new HashMap<>();

    private Components components() {
        return new Components(new ParameterRegistry(env::get, k -> null), List.of(new TcpBoot(), new PmixBoot(env::get)));
    }

    private String reason(String module) {
        Components c = components();
        Components.Verdict v = c.verdict(c.byName(Framework.BOOT, module));
        assertFalse(v.canRun(), module + " should decline");
        return v.reason();
    }

    @Test
    void tcpNamesWhatIsMissing() {
        assertTrue(reason("tcp").contains("LPF_BOOT_TCP_ADDRESS"), reason("tcp"));
        env.put("LPF_BOOT_TCP_ADDRESS", "127.0.0.1:4000");
        assertTrue(reason("tcp").contains("no job key"), reason("tcp"));
        env.put("LPF_BOOT_TCP_KEY", "k");
        assertTrue(reason("tcp").contains("rank and size not set"), reason("tcp"));
        env.put("LPF_BOOT_TCP_RANK", "3");
        env.put("LPF_BOOT_TCP_SIZE", "3");
        assertTrue(reason("tcp").contains("rank 3 not below"), reason("tcp"));
        env.put("LPF_BOOT_TCP_RANK", "2");
        env.put("LPF_BOOT_TCP_ADDRESS", "no-port");
        assertTrue(reason("tcp").contains("not host:port"), reason("tcp"));
        env.put("LPF_BOOT_TCP_ADDRESS", "127.0.0.1:4000");
        Components c = components();
        assertEquals("tcp", c.select(Framework.BOOT).name());
        assertEquals(40, c.verdict(c.byName(Framework.BOOT, "tcp")).priority());
    }

    @Test
    void pmixNamesTheLauncherVariablesAndTheLibrary() {
        assertTrue(reason("pmix").contains("PMIX_NAMESPACE"), reason("pmix"));
        env.put("PMIX_NAMESPACE", "ns");
        env.put("PMIX_RANK", "0");
        env.put("LPF_BOOT_PMIX_LIBRARY", "/nonexistent/libpmix.so.2");
        assertTrue(reason("pmix").contains("/nonexistent/libpmix.so.2 not found"), reason("pmix"));
    }

    @Test
    void addressesParse() {
        assertEquals(4000, TcpSettings.parseAddress("localhost:4000").getPort());
        assertTrue(TcpSettings.parseAddress("[::1]:4000").getAddress().isLoopbackAddress());
        assertThrows(IllegalArgumentException.class, () -> TcpSettings.parseAddress("host:70000"));
        assertThrows(IllegalArgumentException.class, () -> TcpSettings.parseAddress(":4000"));
        assertTrue(new TcpSettings(TcpSettings.parseAddress("h:1"), new byte[]{1}, 0, 1, true, "127.0.0.1", 1, 1 << 20)
                .toString().contains("key=(hidden)"));
    }
}
