package org.lpf4j.spi;

import java.util.LinkedHashMap;
import java.util.SequencedMap;

/**
 * A module of one of the component {@link Framework frameworks} (SSI's {@code lam_ssi_t}): found
 * with {@link java.util.ServiceLoader} under the framework's service interface, described by its
 * name and versions, opened once to register its parameters, and queried to find out whether it
 * can run here and with what priority. {@link Components} does the finding, opening and selecting.
 *
 * <p>Implementations must have a public no-argument constructor that does nothing expensive and
 * has no side effects: {@code lpf info} instantiates and opens every module it finds.
 */
public interface Component {
    /** @return the module's name, unique within its framework: letters, digits and '_' (e.g. {@code "threads"}) */
    String name();

    /** @return the framework this module belongs to */
    Framework framework();

    /**
     * @return the version of the framework API this module was written against; the module is
     *         declined if this lpf4j's {@link Framework#apiVersion()} has another major number or
     *         a smaller minor number
     */
    Version frameworkApiVersion();

    /** @return the module's own version; processes of one job must agree on major.minor */
    Version version();

    /**
     * Registers the module's parameters (keys {@code lpf.<framework>.<name>.<parameter>}); called
     * once, before any {@link #query()}. Must have no side effects beyond registering: no threads,
     * no native libraries loaded, no files opened. The default registers nothing.
     *
     * @param parameters where to register, scoped to this module
     */
    default void open(ModuleParameters parameters) {}

    /**
     * Answers whether the module can run in this process and with what priority. May look at the
     * environment (variables, files, classes present); cheap; may be called several times.
     *
     * @return can-run with priority, or declined with a reason
     */
    Query query();

    /**
     * What {@code lpf info} shows about the module beyond its versions and parameters (e.g. which
     * native library it found and that library's version), as labelled lines in the map's
     * iteration order. Called only by tools, never on a hot path; like {@link #query()} it must not
     * start anything (no threads, no initialisation of a native runtime), though it may look a
     * library up. A module whose details cannot be read answers the reason as a value rather than
     * throwing. The default has none.
     *
     * @return label to value, in display order; empty if the module has nothing to add
     */
    default SequencedMap<String, String> details() { return new LinkedHashMap<>(); }
}
