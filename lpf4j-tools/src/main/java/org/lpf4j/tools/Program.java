package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.Spmd;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/**
 * A program {@code lpf run} can start, found by class name: either an {@link Spmd} class with a
 * public no-argument constructor, or a class with {@code public static void main(String[])}
 * (an SPMD class that also has a {@code main} runs as SPMD).
 */
sealed interface Program {

    /**
     * An {@link Spmd} implementation; {@link #perProcess()} runs a fresh instance on every process,
     * so a program may keep per-process state in its fields (as a C SPMD function keeps it in
     * locals).
     */
    record SpmdProgram(Class<? extends Spmd> type) implements Program {
        /**
         * @return an SPMD function that makes its own instance of {@link #type()} on each process
         *         (by the public no-argument constructor) and runs it; serializable
         * @throws UsageException if there is no usable public no-argument constructor (checked
         *                        here, before any section starts)
         */
        Spmd perProcess() {
            constructor();
            return new PerProcess(type);
        }

        private Constructor<? extends Spmd> constructor() {
            try {
                return type.getConstructor();
            } catch (NoSuchMethodException e) {
                throw new UsageException("lpf run: " + type.getName() + " implements org.lpf4j.Spmd but has no public "
                        + "no-argument constructor");
            }
        }

        /**
         * @return a new instance made by the public no-argument constructor
         * @throws UsageException if there is no such constructor or it is not usable
         * @throws ProgramFailure if the constructor threw (carrying what it threw)
         */
        Spmd create() {
            Constructor<? extends Spmd> constructor = constructor();
            try {
                return constructor.newInstance();
            } catch (InstantiationException | IllegalAccessException e) {
                throw new UsageException("lpf run: cannot instantiate " + type.getName() + ": " + e);
            } catch (InvocationTargetException e) {
                throw new ProgramFailure("the constructor of " + type.getName() + " threw " + e.getCause(), e.getCause());
            }
        }
    }

    /** Runs a fresh instance of {@code type} on each process; a constructor's failure fails the section. */
    record PerProcess(Class<? extends Spmd> type) implements Spmd {
        private static final long serialVersionUID = 1L;

        @Override
        public void run(Context ctx) throws Exception {
            new SpmdProgram(type).create().run(ctx);
        }
    }

    /** A class with {@code public static void main(String[])}. */
    record MainProgram(Method main) implements Program {
        /**
         * Calls {@code main(args)} on this thread.
         *
         * @throws ProgramFailure carrying whatever {@code main} threw
         */
        void run(String[] args) {
            try {
                main.invoke(null, (Object) args);
            } catch (IllegalAccessException e) {
                throw new UsageException("lpf run: cannot call " + main + ": " + e.getMessage());
            } catch (InvocationTargetException e) {
                throw new ProgramFailure(main.getDeclaringClass().getName() + ".main threw " + e.getCause(), e.getCause());
            }
        }
    }

    /**
     * Finds the program called {@code className}.
     *
     * @param className  a binary class name, e.g. {@code org.lpf4j.examples.InnerProduct}
     * @param loader     where to look
     * @param initialize whether to initialise the class (false where it only is inspected, e.g. by
     *                   the side that launches the processes which run it)
     * @return the program
     * @throws UsageException if the class does not exist, cannot be loaded, or is neither kind
     */
    static Program find(String className, ClassLoader loader, boolean initialize) {
        Class<?> type;
        try {
            type = Class.forName(className, initialize, loader);
        } catch (ClassNotFoundException e) {
            throw new UsageException("lpf run: class '" + className + "' not found on the class path "
                    + "(give its fully qualified name, e.g. org.lpf4j.examples.InnerProduct, and add its "
                    + "jar or directory with --class-path)");
        } catch (LinkageError e) {
            throw new UsageException("lpf run: class '" + className + "' cannot be loaded: " + e);
        }
        if (Spmd.class.isAssignableFrom(type)) {
            if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
                throw new UsageException("lpf run: " + className + " is abstract; name a concrete org.lpf4j.Spmd class");
            }
            return new SpmdProgram(type.asSubclass(Spmd.class));
        }
        try {
            Method main = type.getMethod("main", String[].class);
            if (Modifier.isStatic(main.getModifiers()) && main.getReturnType() == void.class) {
                return new MainProgram(main);
            }
        } catch (NoSuchMethodException e) {
            // reported below
        }
        throw new UsageException("lpf run: " + className + " neither implements org.lpf4j.Spmd (with a public "
                + "no-argument constructor) nor has public static void main(String[])");
    }
}
