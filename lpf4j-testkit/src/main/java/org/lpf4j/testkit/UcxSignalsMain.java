package org.lpf4j.testkit;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;

/**
 * Run by the engines' UcxSignalsTest under a launcher that did not set {@code UCX_ERROR_SIGNALS}: every
 * process of a section on all ranks makes the JVM take SIGSEGVs on purpose (implicit null checks,
 * each caught as a {@link NullPointerException}), in the interpreter and in compiled code, then
 * prints how many it caught and the value of {@code UCX_ERROR_SIGNALS} in its C environment
 * ({@link CEnv}). Argument: p.
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
                    + CEnv.get("UCX_ERROR_SIGNALS") + "]");
            System.out.flush();
            ctx.sync();
        }

        private static int length(String s) { return s.length(); }
    }

    /** @param args p */
    public static void main(String[] args) {
        Context root = Lpf.root();
        root.exec(Integer.parseInt(args[0]), new NullChecks());
        System.out.println("ALL DONE");
    }
}
