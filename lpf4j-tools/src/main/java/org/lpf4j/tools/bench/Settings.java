package org.lpf4j.tools.bench;

/**
 * How long {@link Measurement} measures each cell of the table.
 *
 * @param repetitions     timed repetitions whose median is reported, ≥ 1
 * @param warmupNanos     minimum warm-up time before the first repetition (also used to choose
 *                        the number of steps per repetition)
 * @param repetitionNanos the targeted duration of one repetition
 */
public record Settings(int repetitions, long warmupNanos, long repetitionNanos) implements java.io.Serializable {

    /**
     * The default of {@code lpf bench}: repetitions of about 20 ms after 200 ms of warm-up.
     *
     * @param repetitions timed repetitions per cell
     * @return the settings
     */
    public static Settings standard(int repetitions) {
        return new Settings(repetitions, 200_000_000L, 20_000_000L);
    }

    /**
     * {@code lpf bench --quick}: repetitions of about 1 ms after 10 ms of warm-up.
     *
     * @param repetitions timed repetitions per cell
     * @return the settings
     */
    public static Settings quick(int repetitions) {
        return new Settings(repetitions, 10_000_000L, 1_000_000L);
    }

    /** Validates the values. */
    public Settings {
        if (repetitions < 1 || warmupNanos < 0 || repetitionNanos < 1) {
            throw new IllegalArgumentException("Settings(repetitions=" + repetitions + ", warmupNanos=" + warmupNanos
                    + ", repetitionNanos=" + repetitionNanos + "): need repetitions >= 1, warm-up >= 0, "
                    + "repetition time >= 1 ns");
        }
    }
}
