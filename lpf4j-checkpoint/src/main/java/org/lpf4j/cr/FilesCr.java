package org.lpf4j.cr;

import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.Parameters;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.SequencedMap;

/**
 * Checkpoint/restart module {@code files}: each process writes its part of a checkpoint into a
 * directory ({@code lpf.cr.files.dir}: a local disk when all processes run on one host, a shared
 * file system otherwise), checksummed, while the program computes on; process 0 writes the commit
 * mark once every process reported its part written; only the newest {@code lpf.cr.files.keep}
 * are kept. Someone outside the job asks for a checkpoint with {@code lpf checkpoint DIR}.
 * Runs (priority 20) only when the directory is set; declines otherwise, so that {@code none}
 * stays the default when nothing asks for checkpoints.
 *
 * <p>Parameters: {@code dir} (the directory; created if missing), {@code every} (interval, e.g.
 * {@code 30s}; default {@code 0}: none), {@code keep} (default 2), {@code resume} (default false:
 * restore the newest checkpoint at start even outside a {@link Restarts} retry; what
 * {@code lpf run --resume} sets).
 */
public final class FilesCr implements CheckpointModule {
    private Parameters.Parameter<String> dir;
    private TriggerParameters triggers;

    /** For {@link java.util.ServiceLoader}. */
    public FilesCr() {}

    @Override public String name() { return "files"; }

    @Override public Version frameworkApiVersion() { return TriggerParameters.API; }

    @Override public Version version() { return TriggerParameters.VERSION; }

    @Override
    public void open(ModuleParameters parameters) {
        dir = parameters.string("dir", "", "the directory the checkpoints go to (lpf run --checkpoint-dir); "
                + "shared by all processes' hosts; created if missing");
        triggers = new TriggerParameters(parameters, true);
    }

    @Override
    public Query query() {
        if (dir == null || dir.get().isBlank()) {
            return Query.decline((dir == null ? "lpf.cr.files.dir" : dir.key())
                    + " is not set (lpf run --checkpoint-dir DIR sets it)");
        }
        return Query.run(20);
    }

    @Override
    public CrSettings settings() { return triggers.resolve(); }

    @Override
    public CheckpointStore open(Job job) {
        if (dir.get().isBlank()) throw new IllegalStateException(dir.key() + " is not set: the files module has no directory");
        return new FilesStore(Path.of(dir.get()), dir.key() + " (from " + dir.source().label() + ")", job);
    }

    @Override
    public SequencedMap<String, String> details() {
        SequencedMap<String, String> d = new LinkedHashMap<>();
        d.put("outside request", "lpf checkpoint DIR (creates DIR/" + FilesStore.REQUEST_FILE + ")");
        return d;
    }
}
