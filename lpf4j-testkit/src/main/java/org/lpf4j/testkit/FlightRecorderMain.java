package org.lpf4j.testkit;

import org.lpf4j.Lpf;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Run as a job of JVMs by the engines' FlightRecorderTest (with the engine's name as its argument,
 * or none for the automatic choice): one section over every process, each putting 3 × 8 bytes to the next pid in superstep 2.
 */
public final class FlightRecorderMain {
    private FlightRecorderMain() {}

    /** @param args the engine's name, or none */
    public static void main(String[] args) {
        var root = args.length == 0 ? Lpf.root() : Lpf.root(args[0]);
        root.exec(Lpf.MAX_P, ctx -> {
            int next = (ctx.pid() + 1) % ctx.nprocs();
            MemorySegment data = Arena.ofAuto().allocate(64);
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(4);
            ctx.sync();
            Memslot slot = ctx.registerGlobal(data);
            ctx.sync();
            for (int k = 0; k < 3; k++) ctx.put(slot, 8 * k, next, slot, 32 + 8 * k, 8);
            ctx.sync();
            ctx.deregister(slot);
        });
        System.out.println("JFR RUN OK");
    }
}
