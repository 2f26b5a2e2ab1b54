package org.lpf4j;

/**
 * Hints to {@link Context#sync(SyncAttr)} (the C API's {@code lpf_sync_attr_t}). The core API
 * defines only {@link #DEFAULT}; attributes never change the semantics of default messages.
 */
public final class SyncAttr {
    /** The default synchronisation (the C API's {@code LPF_SYNC_DEFAULT}). */
    public static final SyncAttr DEFAULT = new SyncAttr("default");

    private final String name;

    private SyncAttr(String name) { this.name = name; }

    @Override
    public String toString() { return "SyncAttr." + name; }
}
