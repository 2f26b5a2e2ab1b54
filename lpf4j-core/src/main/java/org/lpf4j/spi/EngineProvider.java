package org.lpf4j.spi;

import org.lpf4j.Context;

import java.util.Map;
import java.util.Optional;

/**
 * A module of the {@code engine} framework: what an engine implements to be found by
 * {@link java.util.ServiceLoader} and chosen at run time by {@link Components}. Tools
 * ({@code lpf run}, {@code lpf probe}, {@code lpf bench}) use only this interface, never an
 * engine's name or classes: how big the machine is ({@link #machineSize()}), how to get p
 * processes ({@link #settingsForProcesses} in this JVM, or a {@link #launcher()} that starts
 * them as separate processes), and {@link #shutdown()}.
 */
public interface EngineProvider extends Component {
    @Override default Framework framework() { return Framework.ENGINE; }

    /**
     * Makes a root context. Called only after {@link #query()} said the engine can run.
     *
     * @return a new root context: one process, the whole machine for {@code exec}
     */
    Context root();

    /**
     * The machine size without measuring: the most processes an {@code exec} from a root made
     * now gets (what {@code probe().p()} on it reports). O(1); measures nothing.
     *
     * @return the machine size, ≥ 1
     */
    int machineSize();

    /**
     * Parameter settings (key → value, launcher precedence) under which roots made afterwards in
     * this JVM provide exactly {@code n} processes ({@code lpf run -p N} means N, also for a
     * program that asks for {@code Lpf.MAX_P}), e.g. the machine size of an in-process engine set
     * to {@code n} (as {@code lpfrun -n} in C LPF). Empty when the machine size is already
     * {@code n} or when the engine cannot resize in-process (then its processes come from
     * {@link #launcher()}). Tools apply the
     * settings in a scope and undo them afterwards. No side effects.
     *
     * @param n the processes wanted, ≥ 1
     * @return the settings to apply
     */
    default Map<String, String> settingsForProcesses(int n) { return Map.of(); }

    /**
     * How to start this engine's processes as separate JVMs (e.g. under {@code mpirun}), for an
     * engine whose processes are not threads of one JVM. Empty for in-process engines, and empty
     * in a JVM that is already one of the launched processes (so a launched {@code lpf run}
     * runs the program instead of launching again).
     *
     * @return the launcher, if {@code lpf run -p N} must delegate to one
     */
    default Optional<ProcessLauncher> launcher() { return Optional.empty(); }

    /**
     * The transport beneath this engine's processes, for {@code lpf bench}: with a
     * {@link #launcher()} as well, {@code lpf bench} runs its benchmark under that launcher and
     * prints the engine's rows beside this transport's own (e.g. the MPI calls the engine wraps)
     * with their ratios, instead of its in-JVM table. O(1); loads and starts nothing. Empty
     * (default): the engine offers none.
     *
     * @return the raw baseline (the transport beneath the engine, used directly), if the engine offers one
     */
    default Optional<RawBaseline> rawBaseline() { return Optional.empty(); }

    /**
     * Releases what the engine holds for the life of the JVM (native libraries, connections,
     * threads). Called at most once, by a tool at its end ({@code lpf} calls it on every installed
     * engine before exiting) or by a shutdown hook, when no context of the engine is in use any
     * more; later roots are not supported. An engine that made no root must do nothing. Default:
     * nothing to do.
     */
    default void shutdown() {}
}
