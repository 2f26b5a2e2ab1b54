package org.lpf4j;

/**
 * An extension of the LPF core API that an engine may or may not provide; ask with
 * {@link Context#supports(Capability)} (O(1), the same answer on every process of a context).
 * Libraries that use an extension say what they do without it.
 */
public enum Capability {
    /**
     * Puts with message-combining semantics ({@link MsgAttr#combining}). Without it, a put with
     * a combining attribute throws {@link IllegalArgumentException} at the call.
     */
    COMBINING_PUTS
}
