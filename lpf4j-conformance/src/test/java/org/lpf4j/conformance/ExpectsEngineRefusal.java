package org.lpf4j.conformance;

import org.junit.jupiter.api.Tag;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test whose program makes a programming error on purpose and asserts the engine's own
 * refusal (an {@code IllegalArgumentException} or {@code IllegalStateException} that leaves the
 * section running). With the debug layer on ({@code lpf.debug=true}) the layer reports such a
 * call first, as an {@link org.lpf4j.debug.LpfProgrammingError} that fails the section, so the
 * runs of the suite with the layer on leave these tests out by their tag, {@value #TAG}.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(ExpectsEngineRefusal.TAG)
public @interface ExpectsEngineRefusal {
    /** The JUnit tag; the debug-layer runs exclude it (lpf4j-conformance's pom, ConformanceMain). */
    String TAG = "engine-refusal";
}
