package org.lpf4j.testkit;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.util.function.Supplier;

/**
 * The one place the engines' tests decide to skip for want of something the machine lacks (an MPI
 * launcher or library, network namespaces, root): on a developer's machine the test is skipped,
 * saying why (a JUnit assumption); under {@code CI=true} (as GitHub Actions and most CI services
 * set it) it fails instead, so that a CI machine without MPI cannot pass the multi-process suites
 * without running them.
 */
public final class Needs {
    private Needs() {}

    /** The variable CI services set to {@code true}. */
    public static final String CI = "CI";

    /** @return whether this JVM runs under CI ({@code CI=true}) */
    public static boolean underCi() { return "true".equalsIgnoreCase(System.getenv(CI)); }

    /**
     * Skips (or under CI fails) the calling test unless {@code met}.
     *
     * @param met  whether the machine has what the test needs
     * @param what what it lacks otherwise, for the message
     */
    public static void that(boolean met, Supplier<String> what) {
        if (!met) missing(what.get());
    }

    /** {@link #that(boolean, Supplier)} with a fixed message. */
    public static void that(boolean met, String what) {
        if (!met) missing(what);
    }

    /**
     * Skips (or under CI fails) the calling test: the machine lacks {@code what}.
     *
     * @param what what the machine lacks
     */
    public static void missing(String what) { missing(what, underCi()); }

    /** {@link #missing(String)} with the CI answer given (for its test). */
    static void missing(String what, boolean ci) {
        if (ci) Assertions.fail("CI=true and this multi-process test would be skipped: " + what);
        Assumptions.abort(what);
    }
}
