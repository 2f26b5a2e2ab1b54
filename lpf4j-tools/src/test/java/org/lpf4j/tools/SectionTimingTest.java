package org.lpf4j.tools;

import org.junit.jupiter.api.Test;
import org.lpf4j.Spmd;
import org.lpf4j.engine.threads.ThreadsEngine;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The timing line of {@code lpf run} states only what this JVM saw: processes whose copy of the
 * wrapped program ran elsewhere (a serialized copy, as a multi-process engine ships it) are named
 * as not timed, and never reported as having made 0 syncs.
 */
class SectionTimingTest {
    private static final Spmd TWO_SYNCS = ctx -> {
        ctx.sync();
        ctx.sync();
    };

    @Test
    void everyProcessInThisJvmIsTimedAndCompared() {
        SectionTiming timing = new SectionTiming(4);
        ThreadsEngine.root().exec(4, timing.wrap(TWO_SYNCS));
        String s = timing.summary();
        assertTrue(s.startsWith("p=4  supersteps=2  time="), s);
        assertFalse(s.contains("warning") || s.contains("note"), s);
    }

    @Test
    void processesThatRanInOtherJvmsAreNamedNotCounted() throws Exception {
        SectionTiming timing = new SectionTiming(5);
        Spmd here = timing.wrap(TWO_SYNCS);
        Spmd elsewhere = copy(here);
        timing.close(); // the copy now finds no timing of its run, as in another JVM
        ThreadsEngine.root().exec(5, ctx -> (ctx.pid() == 0 || ctx.pid() == 2 ? here : elsewhere).run(ctx));
        String s = timing.summary();
        assertTrue(s.startsWith("p=5  supersteps=2  time="), s);
        assertFalse(s.contains("warning"), s);
        assertTrue(s.endsWith("note: timed in this JVM only (pids 0, 2); pids 1, 3-4 ran in other JVMs: not timed or"
                + " counted here"), s);
    }

    @Test
    void copiesRunByOtherRanksOfThisJvmAreTimedHere() throws Exception {
        SectionTiming timing = new SectionTiming(3);
        Spmd here = timing.wrap(TWO_SYNCS);
        Spmd copy = copy(here); // what a multi-JVM engine gives a rank that shares this JVM
        ThreadsEngine.root().exec(3, ctx -> (ctx.pid() == 0 ? here : copy).run(ctx));
        timing.close();
        String s = timing.summary();
        assertTrue(s.startsWith("p=3  supersteps=2  time="), s);
        assertFalse(s.contains("note") || s.contains("warning"), s);
    }

    private static Spmd copy(Spmd spmd) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(spmd);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (Spmd) in.readObject();
        }
    }
}
