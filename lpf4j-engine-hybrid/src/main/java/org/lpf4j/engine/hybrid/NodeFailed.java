package org.lpf4j.engine.hybrid;

import org.lpf4j.FatalException;

import java.util.List;

/**
 * How a node's section ends when the node failed: the MPI engine carries it to pid 0 like any
 * exception a process threw, and the hybrid root unpacks it ({@link #flatten}): its message is
 * the node's failure (naming the pid and node), its cause and suppressed exceptions are what the
 * node's processes threw. So {@code exec}'s {@link FatalException} carries exactly the processes'
 * exceptions, as on the other engines, and none when nobody threw (a process returned early).
 */
final class NodeFailed extends FatalException {
    private static final long serialVersionUID = 1L;

    NodeFailed(String message, Throwable cause) { super(message, cause); }

    /**
     * Adds to {@code causes} the exceptions the processes threw, found in {@code t} (a node's
     * failure, a cause the MPI engine carried, or null), and to {@code reasons} the nodes' messages.
     */
    static void flatten(Throwable t, List<Throwable> causes, List<String> reasons) {
        if (t == null) return;
        if (t instanceof NodeFailed f) {
            if (!reasons.contains(f.getMessage())) reasons.add(f.getMessage());
            flatten(f.getCause(), causes, reasons);
            for (Throwable s : f.getSuppressed()) flatten(s, causes, reasons);
        } else {
            causes.add(t);
        }
    }
}
