package org.lpf4j.engine.net;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.testkit.EmulatedHostsScript;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code bin/emulated-hosts --yield} for the net engine (docs/scale.md): every rank, in its host's
 * namespace, gets {@code lpf.engine.net.wait=yield} and a spin of 1 ms, or the caller's
 * {@code LPF_ENGINE_NET_SPINMICROS} when set. No JVM: the ranks are shells that print what they
 * were given. The script's trap deletes its namespaces; the test checks that none is left, nor
 * any process of the job.
 */
class EmulatedHostsWaitTest {
    private static final Pattern RANK = Pattern.compile("rank=(\\d+) ns=(\\S+) wait=(\\S*) spin=(\\S*)");

    /** @param callersSpin the caller's LPF_ENGINE_NET_SPINMICROS, empty for none */
    @ParameterizedTest
    @ValueSource(strings = {"", "300"})
    void everyRankWaitsByYieldingWithTheSpinOfTheScriptOrTheCaller(String callersSpin) throws Exception {
        String marker = "lpf-test-" + UUID.randomUUID();
        String rank = "echo rank=$LPF_BOOT_TCP_RANK ns=$(ip netns identify $$) wait=$LPF_ENGINE_NET_WAIT spin=$LPF_ENGINE_NET_SPINMICROS";
        Map<String, String> environment = new HashMap<>();
        environment.put("LPF_ENGINE_NET_WAIT", null);
        environment.put("LPF_ENGINE_NET_SPINMICROS", callersSpin.isEmpty() ? null : callersSpin);
        String out = EmulatedHostsScript.run(List.of("--hosts", "2", "--per-host", "2", "--timeout", "60", "--yield", "--",
                "sh", "-c", rank, marker), environment, marker, 90);
        Set<String> ranks = new TreeSet<>(), hosts = new TreeSet<>();
        Matcher m = RANK.matcher(out);
        while (m.find()) {
            ranks.add(m.group(1));
            hosts.add(m.group(2));
            assertEquals("lpf4j-e" + Integer.parseInt(m.group(1)) / 2, m.group(2), "rank " + m.group(1) + "'s host:\n" + out);
            assertEquals("yield", m.group(3), "rank " + m.group(1) + "'s wait:\n" + out);
            assertEquals(callersSpin.isEmpty() ? "1000" : callersSpin, m.group(4), "rank " + m.group(1) + "'s spin:\n" + out);
        }
        assertEquals(Set.of("0", "1", "2", "3"), ranks, out);
        assertEquals(Set.of("lpf4j-e0", "lpf4j-e1"), hosts, out);
    }
}
