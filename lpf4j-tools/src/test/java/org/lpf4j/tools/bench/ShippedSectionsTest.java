package org.lpf4j.tools.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;
import org.lpf4j.bench.programs.ProgramBench;
import org.lpf4j.bench.programs.ProgramCase;
import org.lpf4j.bench.programs.Programs;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The mpi and hybrid engines ship every section's SPMD function to the job's other JVMs, so
 * {@code lpf bench} (its workloads) and {@code lpf bench --programs} (its cases) must serialize:
 * {@code lpf bench --engine hybrid} died with "Workloads$1 is not serializable". Checked here on
 * the threads engine through a root that serializes every SPMD function it starts, as those
 * engines do.
 */
@Timeout(60)
class ShippedSectionsTest {
    private static byte[] serialize(Object o) {
        try (ByteArrayOutputStream bytes = new ByteArrayOutputStream(); ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize " + o + " (" + o.getClass().getName() + ")", e);
        }
    }

    private static Object roundTrip(Object o) throws Exception {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(serialize(o)))) {
            return in.readObject();
        }
    }

    @Test
    void everyWorkloadAndProgramCaseCrossesJvms() throws Exception {
        for (Workload w : Workloads.all()) {
            Workload copy = (Workload) roundTrip(w);
            assertEquals(w.name(), copy.name());
            assertEquals(w.messages(3), copy.messages(3), w.name());
        }
        for (ProgramCase c : Programs.quick()) assertEquals(c.name(), ((ProgramCase) roundTrip(c)).name());
    }

    /** @return the threads engine's root, serializing every SPMD function that its exec starts (counted) */
    private static Context shipping(AtomicInteger shipped) {
        Context real = Lpf.root();
        return (Context) Proxy.newProxyInstance(Context.class.getClassLoader(), new Class<?>[] {Context.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("exec")) {
                        serialize((Spmd) args[1]);
                        shipped.incrementAndGet();
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void theSectionsOfBothBenchmarksSerialize() {
        AtomicInteger shipped = new AtomicInteger();
        Context root = shipping(shipped);
        BenchTable table = SideBySide.run(root, List.of(Workloads.emptySync(), CollectiveWorkloads.allreduce()), List.of(),
                new int[] {2}, Settings.quick(1), cell -> { });
        assertTrue(table.rows().stream().allMatch(r -> r.values()[0] > 0), table.format());
        ProgramBench.run(root, Programs.quick().subList(0, 1), new int[] {2}, 0, 1, cell -> { });
        assertEquals(3, shipped.get(), "sections started through the shipping root");
    }
}
