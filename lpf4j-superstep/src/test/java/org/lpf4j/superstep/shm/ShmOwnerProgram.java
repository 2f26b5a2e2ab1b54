package org.lpf4j.superstep.shm;

import java.nio.file.Path;

/**
 * The program of {@link ShmRingTest#aUserOtherThanRootOwnsItsDirectory}: run as another user,
 * makes a job directory under {@code args[0]} and two files in it (the second checks the
 * directory's owner), then sweeps nothing of its own; prints its uid and {@code OK}.
 */
public final class ShmOwnerProgram {
    private ShmOwnerProgram() {}

    public static void main(String[] args) throws Exception {
        Path dir = ShmDirectory.of(Path.of(args[0]), "a job of another user".getBytes());
        ShmDirectory.createFile(dir, "0-1-1");
        ShmDirectory.createFile(dir, "0-2-2");
        System.out.println("UID " + ShmDirectory.myUid() + " OWNER " + ShmDirectory.uid(dir));
        System.out.println("OK");
    }
}
