package org.lpf4j.builtin;

import org.lpf4j.spi.Component;
import org.lpf4j.spi.Version;

/** What the core's own modules share: they are versioned with lpf4j and written against API 1.0. */
abstract class BuiltinModule implements Component {
    /** The version of lpf4j's built-in modules. */
    static final Version VERSION = new Version(0, 1, 0);
    private static final Version API = new Version(1, 0, 0);

    @Override public Version frameworkApiVersion() { return API; }

    @Override public Version version() { return VERSION; }
}
