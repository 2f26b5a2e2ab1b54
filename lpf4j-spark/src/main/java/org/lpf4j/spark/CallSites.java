package org.lpf4j.spark;

import org.apache.spark.SparkContext;

import java.util.List;

/**
 * The call site Spark gives the RDDs a {@link BspStage} makes, and so the stage in its UI and logs:
 * the caller's frame (the first outside {@code BspStage} and this class) instead of lpf4j's own
 * line. Spark reads it
 * from the thread's local properties {@code callSite.short} and {@code callSite.long} when an RDD
 * is made. Cost: one stack walk per {@code mapPartitions}, on the driver.
 */
final class CallSites {
    private CallSites() {}

    static final String SHORT = "callSite.short", LONG = "callSite.long";
    private static final int LONG_FRAMES = 20;

    /** Restores the call site that was set before (none, if none was). */
    interface Scope extends AutoCloseable {
        @Override void close();
    }

    /**
     * Sets the call site to "{@code what} at File.java:line" of the caller, unless the caller set a
     * call site of its own (that one stays).
     *
     * @param sc   the context whose local properties carry it
     * @param what the operation, e.g. {@code "BspStage.mapPartitions"}
     * @return what restores the properties as they were
     */
    static Scope caller(SparkContext sc, String what) {
        if (sc.getLocalProperty(SHORT) != null) return () -> {};
        List<StackTraceElement> frames = StackWalker.getInstance().walk(s -> s
                .dropWhile(f -> isOurs(f.getClassName()))
                .limit(LONG_FRAMES).map(StackWalker.StackFrame::toStackTraceElement).toList());
        if (frames.isEmpty()) return () -> {};
        StackTraceElement top = frames.get(0);
        String where = top.getFileName() == null ? top.getClassName() : top.getFileName() + ":" + top.getLineNumber();
        StringBuilder trace = new StringBuilder();
        for (StackTraceElement f : frames) trace.append(trace.isEmpty() ? "" : "\n").append(f);
        String savedLong = sc.getLocalProperty(LONG);
        sc.setLocalProperty(SHORT, what + " at " + where);
        sc.setLocalProperty(LONG, trace.toString());
        return () -> {
            sc.setLocalProperty(SHORT, null);
            sc.setLocalProperty(LONG, savedLong);
        };
    }

    /** Whether a frame's class is one that makes the stage (BspStage, this class, or a class nested in them). */
    static boolean isOurs(String className) {
        for (String ours : new String[] {BspStage.class.getName(), CallSites.class.getName()}) {
            if (className.equals(ours) || className.startsWith(ours + "$")) return true;
        }
        return false;
    }
}
