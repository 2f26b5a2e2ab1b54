package org.lpf4j;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A misspelt parameter key in a system property is an error at {@link Lpf#root()}, not ignored. */
@Timeout(30)
class MisspeltSettingsTest {

    private static void withProperty(String key, String value, Runnable body) {
        System.setProperty(key, value);
        try {
            body.run();
        } finally {
            System.clearProperty(key);
        }
    }

    @Test
    void aMisspeltKeyIsAnErrorNamingTheNearestKey() {
        withProperty("lpf.coll.costmodel.alreduce", "tree", () -> {
            for (Runnable call : new Runnable[]{Lpf::root, () -> Lpf.root("threads"),
                    () -> Lpf.hook((spmd, args) -> { }, ctx -> { }, Args.NONE)}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
                assertTrue(e.getMessage().contains("system property lpf.coll.costmodel.alreduce names no parameter; "
                        + "did you mean lpf.coll.costmodel.allreduce?"), e.getMessage());
            }
        });
        Lpf.root().exec(2, ctx -> assertEquals(2, ctx.nprocs())); // fine again once the typo is gone
    }

    /** {@code Lpf.root()} refuses {@code typo}, naming it and {@code near}. */
    private static void assertRefused(String typo, String value, String near) {
        withProperty(typo, value, () -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, Lpf::root);
            assertTrue(e.getMessage().contains("system property " + typo + " names no parameter; did you mean " + near + "?"),
                    e.getMessage());
        });
    }

    @Test
    void aMisspeltDebugSwitchIsAnError() {
        for (String typo : new String[] {"lpf.debugg", "lpf.debgu"}) assertRefused(typo, "true", "lpf.debug");
    }

    @Test
    void aMisspeltCapacityModeIsAnError() {
        for (String typo : new String[] {"lpf.capacty", "lpf.capacityy", "lpf.capacity.mode"}) assertRefused(typo, "grow", "lpf.capacity");
    }

    @Test
    void unrelatedOrUnresemblingSettingsPass() {
        withProperty("lpf.othertool.verbose", "yes", () -> withProperty("lpf.engine.mpi.transport", "ucx",
                () -> withProperty("lpf.verbose", "yes", () -> Lpf.root().exec(1, ctx -> assertEquals(0, ctx.pid())))));
    }
}
