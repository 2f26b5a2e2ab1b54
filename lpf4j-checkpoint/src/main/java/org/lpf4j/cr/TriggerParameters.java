package org.lpf4j.cr;

import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.Parameters;
import org.lpf4j.spi.Version;

/** The parameters every checkpointing module registers: {@code every}, {@code keep}, and {@code resume} where it means something. */
final class TriggerParameters {
    static final Version API = new Version(1, 0, 0);
    static final Version VERSION = new Version(0, 1, 0);

    private final Parameters.Parameter<String> every;
    private final Parameters.Parameter<Integer> keep;
    private final Parameters.Parameter<Boolean> resume;
    private final Parameters.Parameter<String> run;

    TriggerParameters(ModuleParameters parameters, boolean withResume) {
        every = parameters.string("every", "0", "interval between checkpoints (lpf run --checkpoint-every), "
                + "e.g. 30s, 500ms, 2m; 0: only when the program or someone outside asks");
        keep = parameters.integer("keep", 2, 1, 1_000_000, "how many complete checkpoints to keep");
        resume = withResume ? parameters.bool("resume", false, "restore the newest complete checkpoint at start "
                + "(lpf run --resume); retries of lpf run --restarts restore it anyway") : null;
        run = withResume ? parameters.string("run", "", "an id of this run of the job (lpf run sets one): its "
                + "retries restore only checkpoints of their own run") : null;
    }

    CrSettings resolve() {
        return new CrSettings(CrSettings.parseDuration(every.key(), every.get()), keep.get(),
                resume != null && resume.get(), run == null ? "" : run.get().trim());
    }
}
