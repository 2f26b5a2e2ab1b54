package org.lpf4j.spi;

import java.util.List;
import java.util.Objects;

/**
 * How a multi-process engine starts p processes of one program (see
 * {@link EngineProvider#launcher()}): it turns a JVM command into the command line that starts
 * p copies of it under the engine's launcher (e.g. {@code mpirun -n p java ...}). {@code lpf run}
 * runs that command, forwards its output and exit status, and kills the whole process tree if it
 * is interrupted. Pure: builds a list, starts nothing.
 */
public interface ProcessLauncher {
    /**
     * One JVM command to run in every process.
     *
     * @param processes   p, ≥ 1
     * @param javaCommand the {@code java} executable
     * @param classPath   the class path
     * @param jvmOptions  options before the main class (e.g. {@code -Dlpf.debug=true})
     * @param mainClass   the main class
     * @param args        its arguments
     */
    record Launch(int processes, String javaCommand, String classPath, List<String> jvmOptions, String mainClass,
                  List<String> args) {
        /** Checks and copies the lists. */
        public Launch {
            if (processes < 1) throw new IllegalArgumentException("Launch: processes=" + processes + " must be at least 1");
            Objects.requireNonNull(javaCommand, "javaCommand");
            Objects.requireNonNull(classPath, "classPath");
            Objects.requireNonNull(mainClass, "mainClass");
            jvmOptions = List.copyOf(jvmOptions);
            args = List.copyOf(args);
        }

        /** @return {@code java [jvmOptions] -cp classPath mainClass [args]}: the command of one process */
        public List<String> javaCommandLine() {
            List<String> c = new java.util.ArrayList<>();
            c.add(javaCommand);
            c.addAll(jvmOptions);
            c.add("-cp");
            c.add(classPath);
            c.add(mainClass);
            c.addAll(args);
            return c;
        }
    }

    /**
     * @param launch what each process runs
     * @return the command line that starts {@code launch.processes()} such processes and exits
     *         with a non-zero status if any of them failed
     */
    List<String> command(Launch launch);
}
