package org.lpf4j.spi;

/**
 * A version {@code major.minor.release}, as SSI versions the framework APIs and the modules.
 * Two versions are {@linkplain #compatibleWith compatible} when major and minor agree; the release
 * number is information only. Immutable; comparing costs nothing.
 *
 * @param major   incompatible changes
 * @param minor   compatible additions (still must agree between processes of one job)
 * @param release fixes; ignored when comparing
 */
public record Version(int major, int minor, int release) implements Comparable<Version> {

    /** Rejects negative numbers. */
    public Version {
        if (major < 0 || minor < 0 || release < 0) {
            throw new IllegalArgumentException("Version(" + major + ", " + minor + ", " + release + "): negative number");
        }
    }

    /**
     * @param text {@code "1.2.3"}, {@code "1.2"} or {@code "1"} (missing numbers are 0)
     * @return the version
     * @throws IllegalArgumentException if the text is not of that form
     */
    public static Version parse(String text) {
        String[] parts = text.trim().split("\\.", -1);
        if (parts.length > 3) throw new IllegalArgumentException("version '" + text + "': more than three numbers");
        int[] n = new int[3];
        try {
            for (int i = 0; i < parts.length; i++) n[i] = Integer.parseInt(parts[i]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("version '" + text + "': expected major.minor.release", e);
        }
        return new Version(n[0], n[1], n[2]);
    }

    /**
     * @param other another version of the same thing
     * @return whether major and minor agree (SSI's rule for modules of one parallel job)
     */
    public boolean compatibleWith(Version other) {
        return major == other.major && minor == other.minor;
    }

    /**
     * @param implemented the version of an API that is available
     * @return whether something written against this API version can use {@code implemented}:
     *         same major, and {@code implemented} has at least this minor
     */
    public boolean satisfiedBy(Version implemented) {
        return major == implemented.major && minor <= implemented.minor;
    }

    @Override
    public int compareTo(Version o) {
        int c = Integer.compare(major, o.major);
        if (c == 0) c = Integer.compare(minor, o.minor);
        return c != 0 ? c : Integer.compare(release, o.release);
    }

    @Override
    public String toString() { return major + "." + minor + "." + release; }
}
