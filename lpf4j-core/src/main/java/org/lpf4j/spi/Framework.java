package org.lpf4j.spi;

/**
 * The component frameworks of lpf4j (SSI's component types). Each has a name (the second part of
 * its parameters' keys), the service interface its modules implement, and the version of that
 * interface this lpf4j provides.
 */
public enum Framework {
    /** How LPF processes run and communicate: threads, mpi, ... ({@link EngineProvider}). */
    ENGINE("engine", EngineProvider.class, new Version(1, 0, 0)),
    /** How the processes of a job find each other ({@link BootModule}). */
    BOOT("boot", BootModule.class, new Version(1, 0, 0)),
    /** Which collective algorithm runs ({@link CollModule}). */
    COLL("coll", CollModule.class, new Version(1, 0, 0)),
    /** Checkpoint/restart ({@link CrModule}). */
    CR("cr", CrModule.class, new Version(1, 0, 0));

    private final String id;
    private final Class<? extends Component> serviceType;
    private final Version apiVersion;

    Framework(String id, Class<? extends Component> serviceType, Version apiVersion) {
        this.id = id;
        this.serviceType = serviceType;
        this.apiVersion = apiVersion;
    }

    /** @return the name used in keys and on the command line, e.g. {@code "engine"} */
    public String id() { return id; }

    /** @return the interface its modules implement and register with {@link java.util.ServiceLoader} */
    public Class<? extends Component> serviceType() { return serviceType; }

    /** @return the version of the framework's API this lpf4j implements */
    public Version apiVersion() { return apiVersion; }

    /** @return the parameter key naming the user's explicit choice, e.g. {@code "lpf.engine"} */
    public String choiceKey() { return "lpf." + id; }

    /**
     * @param id a framework name such as {@code "coll"}
     * @return the framework
     * @throws IllegalArgumentException if there is none of that name
     */
    public static Framework byId(String id) {
        for (Framework f : values()) if (f.id.equals(id)) return f;
        throw new IllegalArgumentException("no framework '" + id + "'; frameworks: engine, boot, coll, cr");
    }

    @Override
    public String toString() { return id; }
}
