package org.lpf4j;

/**
 * Attributes of a {@link Context#put put} or {@link Context#get get} request (the C API's
 * {@code lpf_msg_attr_t}). The core API defines only {@link #DEFAULT}: a plain copy whose write
 * conflicts resolve as some serialisation of the requests.
 */
public final class MsgAttr {
    /** Plain DRMA semantics (the C API's {@code LPF_MSG_DEFAULT}). */
    public static final MsgAttr DEFAULT = new MsgAttr("default");

    private final String name;

    private MsgAttr(String name) { this.name = name; }

    @Override
    public String toString() { return "MsgAttr." + name; }
}
