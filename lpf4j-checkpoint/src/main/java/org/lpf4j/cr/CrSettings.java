package org.lpf4j.cr;

import java.util.Locale;

/**
 * A {@code cr} module's settings, resolved once when {@link Checkpoints#init} runs.
 *
 * @param everyNanos how long after the previous checkpoint the next one is due (0: never by time;
 *                   checkpoints then come only from the program or from outside)
 * @param keep       how many committed checkpoints to keep, at least 1
 * @param resume     whether {@link Checkpoints#resume} restores the newest usable checkpoint even
 *                   outside a {@link Restarts} retry (an explicit restart), of any run of the program
 * @param run        the id of this run of the job, written into its commit marks ("" for none: then
 *                   the id of the {@link Restarts} call, if any); a retry restores only checkpoints
 *                   with its own run's id
 */
public record CrSettings(long everyNanos, int keep, boolean resume, String run) {
    /** Validates. */
    public CrSettings {
        if (everyNanos < 0) throw new IllegalArgumentException("CrSettings: everyNanos " + everyNanos + " < 0");
        if (keep < 1) throw new IllegalArgumentException("CrSettings: keep " + keep + " < 1");
        java.util.Objects.requireNonNull(run, "CrSettings: run");
    }

    /**
     * Parses a duration as {@code lpf run --checkpoint-every} and the {@code every} parameters take
     * it: a number with a unit {@code ms}, {@code s}, {@code m} or {@code h} ({@code 30s},
     * {@code 500ms}, {@code 1.5m}); {@code 0} or {@code off} for never.
     *
     * @param what  the option or parameter, for the message
     * @param value the text
     * @return nanoseconds, 0 for never
     * @throws IllegalArgumentException naming {@code what} and the value if it is not a duration
     */
    public static long parseDuration(String what, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("0") || v.equals("off") || v.isEmpty()) return 0;
        int split = 0;
        while (split < v.length() && (Character.isDigit(v.charAt(split)) || v.charAt(split) == '.')) split++;
        String unit = v.substring(split).trim();
        double scale = switch (unit) {
            case "ms" -> 1e6;
            case "s" -> 1e9;
            case "m", "min" -> 60e9;
            case "h" -> 3600e9;
            default -> Double.NaN;
        };
        double number;
        try {
            number = Double.parseDouble(v.substring(0, split));
        } catch (NumberFormatException e) {
            number = Double.NaN;
        }
        if (Double.isNaN(scale) || Double.isNaN(number) || number < 0) {
            throw new IllegalArgumentException(what + "=" + value + ": not a duration; give a number with a unit "
                    + "ms, s, m or h (e.g. 30s, 500ms, 2m), or 0 / off for never");
        }
        return Math.round(number * scale);
    }
}
