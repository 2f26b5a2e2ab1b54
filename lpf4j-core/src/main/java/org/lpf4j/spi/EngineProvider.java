package org.lpf4j.spi;

import org.lpf4j.Context;

/**
 * A module of the {@code engine} framework: what an engine implements to be found by
 * {@link java.util.ServiceLoader} and chosen at run time by {@link Components}.
 */
public interface EngineProvider extends Component {
    @Override default Framework framework() { return Framework.ENGINE; }

    /**
     * Makes a root context. Called only after {@link #query()} said the engine can run.
     *
     * @return a new root context: one process, the whole machine for {@code exec}
     */
    Context root();
}
