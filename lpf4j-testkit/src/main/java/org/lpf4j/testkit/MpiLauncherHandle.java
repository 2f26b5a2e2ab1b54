package org.lpf4j.testkit;

import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The MPI engine's launcher ({@code org.lpf4j.engine.mpi.MpiLauncher}) as {@link MpiJob} uses it,
 * reached by name at run time: the kit depends on no engine (every engine's tests depend on the
 * kit, so a build dependency on the MPI engine would be a cycle), and a test that runs MPI jobs has
 * the MPI engine on its class path. Each method calls the launcher's public method of that name
 * (see its Javadoc); a missing class or method is the build's error, not the machine's.
 */
final class MpiLauncherHandle {
    private static final String PACKAGE = "org.lpf4j.engine.mpi.";

    private final Object launcher;

    private MpiLauncherHandle(Object launcher) { this.launcher = launcher; }

    /**
     * @param kind the launcher's kind ({@code OPEN_MPI}, {@code MPICH})
     * @return a new launcher of that kind
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static MpiLauncherHandle of(String kind) {
        Class<?> type = load("MpiLauncher");
        Class kinds = load("MpiLauncher$Kind");
        try {
            return new MpiLauncherHandle(type.getConstructor(kinds).newInstance(Enum.valueOf(kinds, kind)));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("MpiJob: cannot make an MpiLauncher(" + kind + ")", e);
        }
    }

    MpiLauncherHandle loopbackOnly() {
        call(launcher, "loopbackOnly", new Class<?>[0]);
        return this;
    }

    MpiLauncherHandle launcherOptions(List<String> options) {
        call(launcher, "launcherOptions", new Class<?>[] {List.class}, options);
        return this;
    }

    boolean available() { return (Boolean) call(launcher, "available", new Class<?>[0]); }

    String kind() { return String.valueOf(call(launcher, "kind", new Class<?>[0])); }

    /** @return whether the library this launcher's ranks load is installed ({@code MpiEngine.libraryInstalled}) */
    boolean libraryInstalled() {
        String library = (String) call(launcher, "library", new Class<?>[0]);
        return (Boolean) call(null, load("MpiEngine"), "libraryInstalled", new Class<?>[] {String.class}, library == null ? "" : library);
    }

    @SuppressWarnings("unchecked")
    List<String> javaCommand(int n, Path javaHome, List<String> jvm, String classPath, String main, List<String> args) {
        return (List<String>) call(launcher, "javaCommand", new Class<?>[] {int.class, Path.class, List.class, String.class, String.class,
                List.class}, n, javaHome, jvm, classPath, main, args);
    }

    @SuppressWarnings("unchecked")
    List<String> command(int n, List<String> program) {
        return (List<String>) call(launcher, "command", new Class<?>[] {int.class, List.class}, n, program);
    }

    @SuppressWarnings("unchecked")
    List<String> commandReportingDeaths(int n, List<String> program) {
        return (List<String>) call(launcher, "commandReportingDeaths", new Class<?>[] {int.class, List.class}, n, program);
    }

    void environment(Map<String, String> env) { call(launcher, "environment", new Class<?>[] {Map.class}, env); }

    private static Class<?> load(String simpleName) {
        try {
            return Class.forName(PACKAGE + simpleName, true, MpiLauncherHandle.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("MpiJob needs the MPI engine (lpf4j-engine-mpi) on the test class path", e);
        }
    }

    private static Object call(Object target, String method, Class<?>[] types, Object... args) {
        return call(target, target.getClass(), method, types, args);
    }

    private static Object call(Object target, Class<?> type, String method, Class<?>[] types, Object... args) {
        try {
            return type.getMethod(method, types).invoke(target, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException("MpiJob: " + type.getSimpleName() + "." + method, e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("MpiJob: " + type.getSimpleName() + "." + method + " not found", e);
        }
    }
}
