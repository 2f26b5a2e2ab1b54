package org.lpf4j.spark;

import org.apache.spark.BarrierTaskContext;
import org.lpf4j.spi.boot.AbstractBootSession;
import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.FenceOptions;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A boot session over a Spark barrier stage: rank = the task's partition, size = the stage's
 * tasks, and every fence is one {@link BarrierTaskContext#allGather} of the values this task
 * committed (Base64 text, as {@code allGather} carries strings). Spark's driver relays the
 * strings, so the values must be public within the application: the net engine publishes
 * addresses and its start-up agreement here, never its key.
 *
 * <p>Fences include every task of the stage (a barrier's only shape); values are found only
 * through fences (no direct lookup). Cost: one {@code allGather} per fence, a round trip to the
 * driver ({@link BarrierWake} spares the second Spark 4.2 would wait for it).
 */
final class BarrierBootSession extends AbstractBootSession {
    private final BarrierTaskContext task;
    private final Map<String, byte[]> committed = new LinkedHashMap<>();

    /** @param task the barrier task this session belongs to */
    BarrierBootSession(BarrierTaskContext task) {
        super(task.partitionId(), task.getTaskInfos().length);
        this.task = task;
    }

    @Override public String module() { return "spark-barrier"; }

    @Override
    protected void publish(Map<String, byte[]> batch) {
        synchronized (committed) {
            committed.putAll(batch);
        }
    }

    @Override
    protected CompletableFuture<Map<Integer, Map<String, byte[]>>> startFence(long seq, long instance, FenceOptions options,
                                                                             int[] participants, Duration timeout) {
        if (participants.length != size()) {
            return CompletableFuture.failedFuture(new BootException("fence(" + options + ") at partition " + rank()
                    + ": a Spark barrier stage fences all of its " + size() + " tasks, not " + participants.length));
        }
        String mine;
        synchronized (committed) {
            mine = options.collectData() ? encode(committed) : "";
        }
        String[] all;
        try {
            all = BarrierWake.call(task, () -> task.allGather(mine));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new BootException("fence(" + options + ") at partition " + rank()
                    + ": Spark's allGather failed: " + e, new int[0], e));
        }
        Map<Integer, Map<String, byte[]>> data = new HashMap<>();
        if (options.collectData()) {
            if (all.length != size()) {
                return CompletableFuture.failedFuture(new BootException("fence at partition " + rank() + ": allGather gave "
                        + all.length + " answers for " + size() + " tasks"));
            }
            for (int r = 0; r < all.length; r++) data.put(r, decode(all[r], r));
        }
        return CompletableFuture.completedFuture(data);
    }

    @Override
    protected byte[] fetch(int owner, String key, long timeoutNanos) { return null; }

    @Override
    protected void release() {}

    private static String encode(Map<String, byte[]> values) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(values.size());
            for (Map.Entry<String, byte[]> e : values.entrySet()) {
                byte[] k = e.getKey().getBytes(StandardCharsets.UTF_8);
                out.writeInt(k.length);
                out.write(k);
                out.writeInt(e.getValue().length);
                out.write(e.getValue());
            }
        } catch (IOException e) {
            throw new IllegalStateException(e); // a ByteArrayOutputStream does not fail
        }
        return Base64.getEncoder().encodeToString(bytes.toByteArray());
    }

    private Map<String, byte[]> decode(String text, int from) {
        Map<String, byte[]> values = new HashMap<>();
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(Base64.getDecoder().decode(text)))) {
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                byte[] k = in.readNBytes(in.readInt());
                byte[] v = in.readNBytes(in.readInt());
                values.put(new String(k, StandardCharsets.UTF_8), v);
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new BootException("fence at partition " + rank() + ": partition " + from + " sent values that do not decode: " + e);
        }
        return values;
    }
}
