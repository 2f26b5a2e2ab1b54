package org.lpf4j.spark;

import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.boot.FenceOptions;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The boot session of the executors' leaders, seen through the whole stage's session: rank = the
 * node (executor), size = the nodes, and rank r's values are those of task {@code leaders[r]}.
 * Values go into the stage's session as they are; fences are the stage's, in which every other
 * task takes part too (a Spark barrier fences all tasks): the leader allows at most
 * {@code fences} of them, the number its other tasks join (a leader that needed more would wait
 * for ever). Not closed here: the stage's session belongs to the task.
 */
final class LeadersSession implements BootSession {
    private final BootSession stage;
    private final int[] leaders;
    private final int node;
    private int fencesLeft;

    /**
     * @param stage   the task's session over the whole stage
     * @param leaders each node's leader, by node
     * @param node    this task's node (it leads it)
     * @param fences  the fences the other tasks take part in
     */
    LeadersSession(BootSession stage, int[] leaders, int node, int fences) {
        this.stage = stage;
        this.leaders = leaders.clone();
        this.node = node;
        this.fencesLeft = fences;
    }

    @Override public int rank() { return node; }

    @Override public int size() { return leaders.length; }

    @Override public String module() { return stage.module(); }

    @Override public void put(String key, byte[] value) { stage.put(key, value); }

    @Override public void put(String key, MemorySegment value) { stage.put(key, value); }

    @Override public void commit() { stage.commit(); }

    @Override
    public void fence(FenceOptions options) {
        take(options);
        stage.fence(options);
    }

    @Override
    public CompletableFuture<Void> fenceAsync(FenceOptions options) {
        take(options);
        return stage.fenceAsync(options);
    }

    private void take(FenceOptions options) {
        if (fencesLeft == 0) {
            throw new BootException("fence(" + options + ") of executor " + node + "'s leader (task " + leaders[node]
                    + "): the stage's other tasks take part in no more fences");
        }
        fencesLeft--;
    }

    @Override
    public byte[] get(int rank, String key, Duration timeout) {
        if (rank < 0 || rank >= leaders.length) {
            throw new IllegalArgumentException("get(" + rank + ", " + key + "): rank outside 0 to " + (leaders.length - 1));
        }
        return stage.get(leaders[rank], key, timeout);
    }

    @Override
    public void close() {}
}
