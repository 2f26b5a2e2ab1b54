package org.lpf4j.tools.bench;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.debug.Debug;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The debug-layer rows of {@code lpf bench} (issue 5): an empty sync and an 8-byte put + sync
 * started from three roots — {@link Lpf#root()} (which wraps the engine only when
 * {@code lpf.debug} is true, default false), the engine's own root
 * ({@link org.lpf4j.spi.EngineProvider#root()}), and the engine's root wrapped in the checking layer
 * ({@link Debug#wrap(Context)}, as {@code lpf.debug=true} does) — with the ratios to the engine's
 * own root: debug off must cost nothing (ratio ≈ 1); debug on is shown for information.
 */
public final class DebugWorkloads {
    private DebugWorkloads() {}

    /** The suffix of the rows through the engine's own root. */
    public static final String ENGINE = ", engine root";
    /** The suffix of the rows through the checking layer. */
    public static final String DEBUG_ON = ", debug layer on";

    /** @return the suffix of the rows through {@link Lpf#root()}, naming the current {@code lpf.debug} */
    public static String viaLpfRoot() {
        return ", Lpf.root() lpf.debug=" + Lpf.DEBUG.get();
    }

    private static final String[] OPS = {"empty sync", "8 B put to next pid + sync"};

    /** @return for each of empty sync and 8-byte put: via Lpf.root(), via the engine's root, via the debug layer */
    public static List<Workload> rows() {
        List<Workload> rows = new ArrayList<>();
        for (String op : OPS) {
            rows.add(onRoot(op + viaLpfRoot(), inner(op), Root.LPF_ROOT));
            rows.add(onRoot(op + ENGINE, inner(op), Root.ENGINE));
            rows.add(onRoot(op + DEBUG_ON, inner(op), Root.DEBUG_LAYER));
        }
        return List.copyOf(rows);
    }

    /** @return Lpf.root() / engine root and debug on / engine root, for both operations (time ratios) */
    public static List<SideBySide.Ratio> ratios() {
        List<SideBySide.Ratio> ratios = new ArrayList<>();
        for (String op : OPS) {
            ratios.add(new SideBySide.Ratio(op + ": Lpf.root() / engine root (time)", op + viaLpfRoot(), op + ENGINE));
        }
        for (String op : OPS) {
            ratios.add(new SideBySide.Ratio(op + ": debug on / engine root (time)", op + DEBUG_ON, op + ENGINE));
        }
        return List.copyOf(ratios);
    }

    private static Workload inner(String op) {
        return op.equals(OPS[0]) ? Workloads.emptySync()
                : Workloads.putToNext(op, 8, Workload.Metric.MICROSECONDS);
    }

    /** The roots the rows compare (a value, not a supplier: a workload is shipped to every JVM of a job). */
    enum Root implements Supplier<Context> {
        /** {@link Lpf#root()}: the engine, wrapped only when {@code lpf.debug} is true. */
        LPF_ROOT,
        /** The engine's own root. */
        ENGINE,
        /** The engine's own root in the checking layer. */
        DEBUG_LAYER;

        @Override
        public Context get() {
            return switch (this) {
                case LPF_ROOT -> Lpf.root();
                case ENGINE -> Lpf.engine().root();
                case DEBUG_LAYER -> Debug.wrap(Lpf.engine().root());
            };
        }
    }

    /**
     * @param name  the row's name
     * @param inner what to measure
     * @param root  the root whose {@code exec} starts the row's sections (made once per cell)
     * @return {@code inner} under another name and root, at p ≤ 4
     */
    static Workload onRoot(String name, Workload inner, Root root) { return new OnRoot(name, inner, root); }

    private static final class OnRoot extends Workloads.Base {
        private static final long serialVersionUID = 1L;
        private final Workload inner;
        private final Root root;

        OnRoot(String name, Workload inner, Root root) {
            super(name, inner.metric(), inner.registrations());
            this.inner = inner;
            this.root = root;
        }

        @Override public long messages(int p) { return inner.messages(p); }

        @Override public long amountPerStep(int p) { return inner.amountPerStep(p); }

        @Override public Step prepare(Context ctx, Arena arena) { return inner.prepare(ctx, arena); }

        @Override public Context root(Context table) { return root.get(); }
    }
}
