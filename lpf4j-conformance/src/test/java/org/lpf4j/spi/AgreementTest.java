package org.lpf4j.spi;

import org.lpf4j.FatalException;
import org.lpf4j.engine.threads.ThreadsEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The start-up agreement on modules and versions. */
@Timeout(30)
class AgreementTest {
    private static List<Agreement.Choice> choices(String engine, String version) {
        return List.of(new Agreement.Choice("engine", engine, Version.parse(version)),
                new Agreement.Choice("coll", "costmodel", new Version(0, 1, 0)));
    }

    @Test
    void sameMajorMinorAgreesWhateverTheRelease() {
        Agreement.check(List.of(choices("mpi", "1.2.3"), choices("mpi", "1.2.8")));
    }

    @Test
    void differentMinorVersionIsAnErrorListingWhoChoseWhat() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Agreement.check(List.of(choices("mpi", "1.2.3"), choices("mpi", "1.3.0"), choices("mpi", "1.2.0"))));
        assertEquals("the processes of this job selected different modules or versions (major.minor must agree):"
                + " [engine: pid 0: mpi 1.2.3, pid 1: mpi 1.3.0, pid 2: mpi 1.2.0]", e.getMessage());
    }

    @Test
    void differentModuleIsAnError() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Agreement.check(List.of(choices("mpi", "1.0.0"), choices("threads", "1.0.0"))));
        assertEquals("the processes of this job selected different modules or versions (major.minor must agree):"
                + " [engine: pid 0: mpi 1.0.0, pid 1: threads 1.0.0]", e.getMessage());
    }

    @Test
    void encodeDecodeRoundTrip() {
        List<Agreement.Choice> c = Agreement.choices(Components.installed());
        assertEquals(c, Agreement.decode(Agreement.encode(c)));
        assertEquals("engine=threads 0.1.0", c.get(0).toString());
        assertThrows(IllegalArgumentException.class, () -> Agreement.decode("engine"));
    }

    /** Two processes whose module sets differ (fake modules with other versions), exchanging over LPF. */
    @Test
    void verifyOverLpfFindsTheMismatchOnEveryProcess() {
        List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        FatalException e = assertThrows(FatalException.class, () -> ThreadsEngine.root().exec(2, ctx -> {
            // Each "process" has its own installation: pid 1 has a newer build of the coll module.
            ParameterRegistry own = new ParameterRegistry(k -> null, k -> null);
            Components mine = new Components(own, List.of(new Versioned(ctx.pid() == 0 ? "1.4.2" : "1.5.0")));
            try {
                Agreement.verify(ctx, Agreement.choices(mine));
            } catch (IllegalStateException x) {
                seen.add(ctx.pid() + ": " + x.getMessage());
                throw x;
            }
        }));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(2, seen.size(), "both processes detect it");
        String expected = "the processes of this job selected different modules or versions (major.minor must agree):"
                + " [coll: pid 0: fake 1.4.2, pid 1: fake 1.5.0]";
        assertEquals(List.of("0: " + expected, "1: " + expected), seen.stream().sorted().toList());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void verifyOverLpfPassesWhenAllAgree(int p) {
        ThreadsEngine.root().exec(p, ctx -> {
            Components mine = new Components(new ParameterRegistry(k -> null, k -> null),
                    List.of(new Versioned("1.4." + ctx.pid())));
            Agreement.verify(ctx, Agreement.choices(mine));
            ctx.sync(); // capacities are back to 0 and the context still works
        });
    }

    /** A fake coll module of a given version. */
    record Versioned(String v) implements CollModule {
        @Override public String name() { return "fake"; }
        @Override public Version frameworkApiVersion() { return new Version(1, 0, 0); }
        @Override public Version version() { return Version.parse(v); }
        @Override public Query query() { return Query.run(5); }
        @Override public String choose(String operation, Map<String, Double> predictedSeconds) { return "x"; }
    }
}
