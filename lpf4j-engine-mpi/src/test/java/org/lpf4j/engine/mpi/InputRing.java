package org.lpf4j.engine.mpi;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

/** The body of the hook tests' section: each pid's 8-byte input goes to the next pid's output. */
final class InputRing {
    private InputRing() {}

    /** @param ctx a section whose args hold an 8-byte input and an 8-byte output */
    static void run(Context ctx) {
        ctx.resizeMemoryRegister(2);
        ctx.resizeMessageQueue(1);
        ctx.sync();
        Memslot i = ctx.registerGlobal(ctx.args().input()), o = ctx.registerGlobal(ctx.args().output());
        ctx.sync();
        ctx.put(i, 0, (ctx.pid() + 1) % ctx.nprocs(), o, 0, 8);
        ctx.sync();
        ctx.deregister(i);
        ctx.deregister(o);
    }
}
