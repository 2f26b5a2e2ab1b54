package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Args;
import org.lpf4j.LpfOutOfMemoryException;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node starts all its processes or none, as the threads engine's exec does: if one of its
 * threads cannot be started, none of its processes runs the SPMD function and the node's section
 * throws, naming the node (that exception ends the node's part of the MPI-engine section, which
 * the other nodes then learn). Runs a node without a link: no MPI.
 */
@Timeout(60)
class NodeStartTest {

    private static Node node(int t) {
        Node node = new Node(Layout.of(t, 1, t), 0, null, HybridSettings.resolve(1, t));
        for (int l = 0; l < node.t; l++) node.members[l] = new HybridContext(node, l, Args.NONE);
        return node;
    }

    @Test
    void ifAThreadCannotBeStartedNoneOfTheNodesProcessesRuns() {
        AtomicInteger starts = new AtomicInteger(), runs = new AtomicInteger();
        ThreadFactory secondFails = r -> new Thread(r) {
            @Override
            public synchronized void start() {
                if (starts.incrementAndGet() == 2) throw new OutOfMemoryError("unable to create native thread");
                super.start();
            }
        };
        LpfOutOfMemoryException e = assertThrows(LpfOutOfMemoryException.class,
                () -> NodeSection.runMembers(node(4), ctx -> runs.incrementAndGet(), secondFails));
        assertEquals("node 0 (pids 0 to 3): could start only 2 threads; nothing ran", e.getMessage());
        assertEquals(0, runs.get());
    }

    @Test
    void everyProcessRunsWhenAllStart() {
        AtomicInteger runs = new AtomicInteger();
        assertNull(NodeSection.runMembers(node(3), ctx -> {
            runs.incrementAndGet();
            ctx.sync();
        }));
        assertEquals(3, runs.get());
    }

    @Test
    void anEarlyReturnNamesTheProcessByNodeAndThread() {
        var failure = NodeSection.runMembers(node(3), ctx -> {
            ctx.sync();
            if (ctx.pid() == 2) return;
            ctx.sync();
        });
        assertTrue(failure.getMessage().contains("pid 2 (node 0, thread 2) returned from its SPMD function while pid "),
                failure.getMessage());
        assertTrue(failure.getMessage().contains("still synchronises (unequal numbers of syncs)"), failure.getMessage());
    }
}
