package org.lpf4j.spi;

/**
 * A module of the {@code cr} framework: checkpoint/restart of SPMD sections. The only module so
 * far ({@code none}) says that sections cannot be checkpointed; the API will grow with the first
 * real one.
 */
public interface CrModule extends Component {
    @Override default Framework framework() { return Framework.CR; }

    /** @return whether sections run with this module can be checkpointed and restarted */
    boolean canCheckpoint();
}
