import org.lpf4j.Context;
import org.lpf4j.Spmd;

/**
 * A user's program whose last process throws an exception type of the program's own: pid 0 must
 * read it back from another JVM (the class exists only in the --class-path loader).
 */
public class UserFailure implements Spmd {
    /** The program's own failure type. */
    public static class Broken extends RuntimeException {
        public Broken(String message) { super(message); }
    }

    public UserFailure() {}

    @Override
    public void run(Context ctx) {
        ctx.sync();
        if (ctx.pid() == ctx.nprocs() - 1) throw new Broken("the user's own failure at pid " + ctx.pid());
        ctx.sync();
    }
}
