package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.Spmd;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/**
 * A program {@code lpf run} can start, found by class name: either an {@link Spmd} class with a
 * public no-argument constructor, or a class with a {@code main} method as the {@code java}
 * launcher of JDK 25 finds it (JEP 512: {@code static} or instance, with {@code String[]} or no
 * parameter, not private; so a compact source file's {@code void main()} runs too). An SPMD
 * class that also has a {@code main} runs as SPMD.
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

    /**
     * A class with a {@code main} method: {@code main} is {@code static} or, for an instance
     * {@code main}, {@code type} is instantiated by its non-private no-argument constructor first.
     */
    record MainProgram(Class<?> type, Method main) implements Program {
        /**
         * Calls {@code main} (with {@code args} if it takes them) on this thread.
         *
         * @throws ProgramFailure carrying whatever {@code main} or the constructor threw
         */
        void run(String[] args) {
            try {
                Object target = null;
                if (!Modifier.isStatic(main.getModifiers())) {
                    Constructor<?> constructor = type.getDeclaredConstructor();
                    constructor.setAccessible(true);
                    target = constructor.newInstance();
                }
                main.setAccessible(true);
                if (main.getParameterCount() == 0) main.invoke(target);
                else main.invoke(target, (Object) args);
            } catch (NoSuchMethodException | InstantiationException e) {
                throw new UsageException("lpf run: " + type.getName() + " has an instance main but no usable no-argument"
                        + " constructor: " + e);
            } catch (IllegalAccessException | RuntimeException e) {
                throw new UsageException("lpf run: cannot call " + main + ": " + e.getMessage());
            } catch (InvocationTargetException e) {
                throw new ProgramFailure(type.getName() + "." + main.getName() + " threw " + e.getCause(), e.getCause());
            }
        }

        /**
         * The launch protocol of JDK 25 (JEP 512): a non-private {@code main(String[])} declared
         * in {@code type} or inherited from a superclass, else a non-private {@code main()}; either
         * must return void.
         *
         * @return the method, or null if {@code type} has none
         */
        static Method of(Class<?> type) {
            Method m = find(type, String[].class);
            return m != null ? m : find(type);
        }

        private static Method find(Class<?> type, Class<?>... parameters) {
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                try {
                    Method m = c.getDeclaredMethod("main", parameters);
                    if (Modifier.isPrivate(m.getModifiers()) || m.getReturnType() != void.class) return null;
                    if (!Modifier.isStatic(m.getModifiers()) && Modifier.isAbstract(type.getModifiers())) return null;
                    return m;
                } catch (NoSuchMethodException e) {
                    // look in the superclass
                }
            }
            return null;
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
        Method main = MainProgram.of(type);
        if (main != null) return new MainProgram(type, main);
        throw new UsageException("lpf run: " + className + " neither implements org.lpf4j.Spmd (with a public "
                + "no-argument constructor) nor has a main method (static or instance, with String[] or no parameter,"
                + " not private)");
    }
}
