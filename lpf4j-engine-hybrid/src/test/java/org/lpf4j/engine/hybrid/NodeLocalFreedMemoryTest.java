package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;

import java.lang.foreign.Arena;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Node-local requests into or from memory whose Arena was closed while registered name the request
 * and whose memory it was, as on the threads engine (both apply them through the thread group's
 * {@code PullApplier}). Runs a node without a link (the node-local probe's kind): no MPI.
 */
@Timeout(60)
class NodeLocalFreedMemoryTest {

    private static FatalException runNode(Spmd spmd) {
        Node node = new Node(Layout.of(2, 1, 2), 0, null, HybridSettings.resolve(1, 2));
        for (int l = 0; l < node.t; l++) node.members[l] = new HybridContext(node, l, Args.NONE);
        return NodeSection.runMembers(node, spmd);
    }

    @Test
    void aPutIntoMemoryWhoseArenaTheReceiverClosedNamesTheRequest() {
        FatalException e = runNode(ctx -> {
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            Arena arena = Arena.ofShared();
            Memslot slot = ctx.registerGlobal(arena.allocate(512));
            ctx.sync();
            if (ctx.pid() == 1) arena.close(); // the receiver frees registered memory
            ctx.sync();
            if (ctx.pid() == 0) ctx.put(slot, 0, 1, slot, 8, 300); // unbuffered: read at the sync
            ctx.sync();
        });
        assertNotNull(e);
        String m = String.valueOf(e.getMessage()) + " / " + e.getCause();
        assertTrue(m.contains("put from pid 0 to pid 1 global#0 (remote offset=8, size=300): pid 1 closed the Arena"), m);
    }

    @Test
    void aGetFromMemoryWhoseArenaTheOwnerClosedNamesTheRequest() {
        FatalException e = runNode(ctx -> {
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            Arena arena = Arena.ofShared();
            Memslot slot = ctx.registerGlobal(arena.allocate(64));
            ctx.sync();
            if (ctx.pid() == 0) arena.close(); // the owner frees registered memory
            ctx.sync();
            if (ctx.pid() == 1) ctx.get(0, slot, 0, slot, 0, 16);
            ctx.sync();
        });
        assertNotNull(e);
        String m = String.valueOf(e.getMessage()) + " / " + e.getCause();
        assertTrue(m.contains("get by pid 1 from pid 0 global#0 (remote offset=0, size=16): pid 0 closed the Arena"), m);
    }
}
