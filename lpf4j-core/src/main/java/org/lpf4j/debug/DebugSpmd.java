package org.lpf4j.debug;

import org.lpf4j.Context;
import org.lpf4j.Spmd;

/**
 * The user's SPMD function run over a {@link DebugContext}: each process joins the section, sets
 * up the layer's exchange with the others, runs the user's function, and on a normal return
 * checks (with the others) that it deregistered every slot and that no process still waits in a
 * sync.
 *
 * @param user    the user's function
 * @param section the state the processes of this section share
 */
record DebugSpmd(Spmd user, DebugSection section) implements Spmd, org.lpf4j.spi.kit.CrossJvmObjects.Carrier {
    private static final long serialVersionUID = 1L;

    @Override
    public Object program() { return user; }

    @Override
    public void run(Context ctx) throws Exception {
        DebugContext debug = section.join(ctx);
        debug.start();
        user.run(debug);
        debug.end();
    }
}
