package org.lpf4j.debug;

import java.util.Set;

/**
 * Where the user called an LPF primitive: the first stack frame outside the debug layer, the JDK,
 * and every {@link org.lpf4j.Context} implementation (engines, and decorators such as a tool's
 * timing wrapper, which only pass the call on). Costs a partial stack walk
 * (microseconds); the debug layer takes one per primitive call.
 */
final class Site {
    private Site() {}

    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    private static final Set<Class<?>> INTERNAL = Set.of(Site.class, DebugContext.class, DebugSpmd.class,
            DebugSection.class, Debug.class, org.lpf4j.Context.class);

    /** @return the caller, as {@code Class.method(File.java:line)} */
    static String caller() {
        return WALKER.walk(frames -> frames
                .filter(f -> !INTERNAL.contains(f.getDeclaringClass()) && !isJdk(f.getClassName())
                        && !org.lpf4j.Context.class.isAssignableFrom(f.getDeclaringClass()))
                .findFirst()
                .map(f -> simpleName(f.getClassName()) + "." + methodName(f.getMethodName()) + "(" + f.getFileName()
                        + ":" + f.getLineNumber() + ")")
                .orElse("(unknown caller)"));
    }

    private static boolean isJdk(String className) {
        return className.startsWith("java.") || className.startsWith("jdk.") || className.startsWith("sun.");
    }

    /** A lambda's synthetic name {@code lambda$run$0} becomes the enclosing method's, {@code run}. */
    private static String methodName(String name) {
        if (!name.startsWith("lambda$")) return name;
        int end = name.indexOf('$', 7);
        return end > 7 ? name.substring(7, end) : name;
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }
}
