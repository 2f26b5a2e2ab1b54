package org.lpf4j.bsmp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random all-to-all traffic over many supersteps, checked against a reference multiset: every
 * process can regenerate every other process's messages from their seed, so each receiver knows
 * exactly what it must get. Sends mix the slot API and the copying conveniences, come in random
 * order, include empty payloads and whole empty supersteps, and some READ supersteps leave
 * messages unmoved (they must be dropped, not resurface).
 */
@Timeout(120)
class BsmpRandomTrafficTest {
    static final int[] PROCS = Sections.PROCS;
    static final int SUPERSTEPS = 100;
    static final int MAX_PER_PAIR = 4;
    static final int MAX_PAYLOAD = 40;

    record Msg(int src, int dst, long tag, byte[] payload, boolean viaSlot) {
        String key() { return src + ":" + tag + ":" + HexFormat.of().formatHex(payload); }
    }

    /** The messages {@code src} sends in superstep {@code t}, in sending order. */
    static List<Msg> traffic(int t, int src, int p) {
        List<Msg> all = new ArrayList<>();
        if (t % 7 == 3) return all; // an empty superstep everywhere
        Random rnd = new Random(1_000_003L * t + src);
        for (int dst = 0; dst < p; dst++) {
            int n = rnd.nextInt(MAX_PER_PAIR + 1);
            for (int i = 0; i < n; i++) {
                byte[] payload = new byte[rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(MAX_PAYLOAD + 1)];
                rnd.nextBytes(payload);
                all.add(new Msg(src, dst, rnd.nextLong(), payload, rnd.nextBoolean()));
            }
        }
        Collections.shuffle(all, rnd);
        return all;
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void randomAllToAllMatchesTheReferenceMultiset(int p) {
        Sections.run(p, ctx -> exchange(ctx, SUPERSTEPS));
    }

    /** Runs {@code supersteps} supersteps of random traffic on {@code ctx}, checking every delivery. */
    static void exchange(Context ctx, int supersteps) {
        int s = ctx.pid(), p = ctx.nprocs();
        long maxMessages = (long) MAX_PER_PAIR * p, bufferSize = maxMessages * MAX_PAYLOAD;
        Sections.reserve(ctx, 1, maxMessages, 1, 0);
        // Source area for slot sends: tag then payload per message, rewritten every superstep.
        MemorySegment source = Arena.ofAuto().allocate(maxMessages * (8 + MAX_PAYLOAD), 8);
        Memslot sourceSlot = ctx.registerLocal(source);
        try (Bsmp bsmp = Bsmp.create(ctx, bufferSize, Long.BYTES, maxMessages)) {
            for (int t = 0; t < supersteps; t++) {
                long at = 0;
                for (Msg m : traffic(t, s, p)) {
                    if (m.viaSlot()) {
                        source.set(ValueLayout.JAVA_LONG_UNALIGNED, at, m.tag());
                        MemorySegment.copy(MemorySegment.ofArray(m.payload()), 0, source, at + 8, m.payload().length);
                        bsmp.send(m.dst(), sourceSlot, at, sourceSlot, at + 8, m.payload().length);
                        at += 8 + m.payload().length;
                    } else {
                        bsmp.sendLongTag(m.dst(), m.tag(), m.payload());
                    }
                }
                bsmp.sync();
                List<String> expected = new ArrayList<>();
                for (int src = 0; src < p; src++) {
                    for (Msg m : traffic(t, src, p)) if (m.dst() == s) expected.add(m.key());
                }
                assertEquals(expected.size(), bsmp.remainingMessages(), "superstep " + t);
                boolean partial = t % 5 == 4;
                List<String> got = new ArrayList<>();
                for (BsmpMessage m : bsmp.messages()) {
                    got.add(new Msg(m.source(), s, m.tagLong(), m.payloadBytes(), false).key());
                    if (partial && got.size() * 2 >= expected.size()) break;
                }
                if (partial) {
                    assertEquals(expected.size() - got.size(), bsmp.remainingMessages());
                    List<String> rest = new ArrayList<>(expected);
                    for (String g : got) assertEquals(true, rest.remove(g), "unexpected " + g);
                } else {
                    Collections.sort(expected);
                    Collections.sort(got);
                    assertEquals(expected, got, "pid " + s + " superstep " + t);
                }
                bsmp.sync();
            }
        }
        ctx.deregister(sourceSlot);
    }
}
