package org.lpf4j.examples.bsplib;

import org.lpf4j.Context;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** What the examples share: reading a size argument and reporting through process 0's output. */
final class Reports {
    private Reports() {}

    /** @return the first symbol as a positive integer, or {@code dflt} */
    static int size(String program, List<Object> symbols, int dflt) {
        if (symbols.isEmpty()) return dflt;
        Object s = symbols.get(0);
        try {
            int n = s instanceof Number num ? num.intValue() : Integer.parseInt(String.valueOf(s).trim());
            if (n > 0) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(program + ": the size must be a positive integer, got '" + s + "'");
    }

    /** Process 0 writes {@code text} into its output segment (shown by {@code lpf run}), or prints it. */
    static void report(Context ctx, String text) {
        if (ctx.pid() != 0) return;
        MemorySegment out = ctx.args().output();
        if (out.byteSize() > text.getBytes(StandardCharsets.UTF_8).length) out.setString(0, text);
        else System.out.print(text);
    }
}
