package org.lpf4j.debug;

import java.security.CodeSource;
import java.util.Set;

/**
 * Where the user called an LPF primitive: the first stack frame that is not the JDK's, not the
 * debug layer's, not a {@link org.lpf4j.Context} implementation's (engines, and decorators such as
 * a tool's timing wrapper, which only pass the call on) and not lpf4j's own library code (every
 * {@code org.lpf4j.*} package, e.g. the collectives and BSMP, except the examples and classes
 * loaded from a build's test classes or a Maven test-jar). When the call came through library code, the site also
 * names the outermost library method the user called: {@code Main.run(Main.java:12) via
 * Collectives.allreduce}. If every frame is lpf4j's, the first library frame is the site.
 * Costs a partial stack walk (microseconds) plus a cached per-class lookup; the debug layer
 * takes one per primitive call.
 */
final class Site {
    private Site() {}

    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    private static final Set<Class<?>> INTERNAL = Set.of(Site.class, DebugContext.class, DebugSpmd.class,
            DebugSection.class, Debug.class, org.lpf4j.Context.class);

    /** Whether a class is lpf4j library code (see the class comment); computed once per class. */
    private static final ClassValue<Boolean> LIBRARY = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            String name = type.getName();
            if (!name.startsWith("org.lpf4j.") || name.startsWith("org.lpf4j.examples.")) return false;
            return !fromTestClasses(type);
        }
    };

    /** @return the caller, as {@code Class.method(File.java:line)}, plus {@code " via Lib.method"} */
    static String caller() {
        return WALKER.walk(frames -> {
            StackWalker.StackFrame firstLibrary = null, outermostLibrary = null;
            for (StackWalker.StackFrame f : (Iterable<StackWalker.StackFrame>) frames::iterator) {
                Class<?> c = f.getDeclaringClass();
                if (INTERNAL.contains(c) || isJdk(f.getClassName()) || org.lpf4j.Context.class.isAssignableFrom(c)) {
                    continue;
                }
                if (LIBRARY.get(c)) {
                    if (firstLibrary == null) firstLibrary = f;
                    outermostLibrary = f;
                    continue;
                }
                return describe(f) + (outermostLibrary == null ? "" : " via " + simpleName(outermostLibrary.getClassName())
                        + "." + methodName(outermostLibrary.getMethodName()));
            }
            return firstLibrary != null ? describe(firstLibrary) : "(unknown caller)";
        });
    }

    private static String describe(StackWalker.StackFrame f) {
        return simpleName(f.getClassName()) + "." + methodName(f.getMethodName()) + "(" + f.getFileName() + ":"
                + f.getLineNumber() + ")";
    }

    /** Whether the class was loaded from a build's test output (Maven's or Gradle's, or Maven's test-jar). */
    private static boolean fromTestClasses(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) return false;
        String where = source.getLocation().getPath();
        return where.contains("/test-classes/") || where.contains("/classes/java/test/") || where.endsWith("-tests.jar");
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
