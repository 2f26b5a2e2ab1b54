package org.lpf4j.engine.mpi.testing;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Run by the engines' UcxSignalsTest under a launcher that did not set {@code UCX_ERROR_SIGNALS}: every
 * process of a section on all ranks makes the JVM take SIGSEGVs on purpose (implicit null checks,
 * each caught as a {@link NullPointerException}), in the interpreter and in compiled code, then
 * prints how many it caught and the value of {@code UCX_ERROR_SIGNALS} in its C environment (read
 * with libc's {@code getenv}: {@link System#getenv} is a copy taken at JVM start). Argument: p.
 */
public final class UcxSignalsMain {
    private UcxSignalsMain() {}

    /** Each process: the null checks, then its line. */
    static final class NullChecks implements Spmd {
        private static final long serialVersionUID = 1L;

        @Override
        public void run(Context ctx) {
            String[] texts = {"x", null};
            long caught = 0;
            for (int i = 0; i < 200_000; i++) {
                try {
                    length(texts[i & 1]);
                } catch (NullPointerException e) {
                    caught++;
                }
            }
            System.out.println("pid " + ctx.pid() + ": caught " + caught + " NullPointerExceptions, UCX_ERROR_SIGNALS=["
                    + getenv("UCX_ERROR_SIGNALS") + "]");
            System.out.flush();
            ctx.sync();
        }

        private static int length(String s) { return s.length(); }
    }

    /** @return libc's {@code getenv(name)}, or null */
    static String getenv(String name) {
        Linker linker = Linker.nativeLinker();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = (MemorySegment) linker.downcallHandle(linker.defaultLookup().findOrThrow("getenv"),
                    FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS)).invokeExact(a.allocateFrom(name));
            return v.equals(MemorySegment.NULL) ? null : v.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            throw new IllegalStateException("getenv(" + name + ")", t);
        }
    }

    public static void main(String[] args) {
        Context root = Lpf.root();
        root.exec(Integer.parseInt(args[0]), new NullChecks());
        System.out.println("ALL DONE");
    }
}
