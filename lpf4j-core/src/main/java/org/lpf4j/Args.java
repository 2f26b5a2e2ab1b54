package org.lpf4j;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;

/**
 * Input and output of an SPMD section (the C API's {@code lpf_args_t}).
 *
 * <p>Under {@link Context#exec exec} only process 0 receives {@code input} and {@code output};
 * the other processes see empty segments. Under {@link Lpf#hook hook} each process gets the
 * {@code Args} it passed itself. {@code symbols} (the C API's function table) go to every
 * process; multi-process engines require them to be {@link java.io.Serializable}.
 *
 * <p>With an engine of inclusive memory (threads), process 0 works directly on the caller's
 * output segment, so whatever it writes there is delivered, also when the section fails.
 *
 * @param input   read by process 0 (never {@code null}; {@link MemorySegment#NULL} for none)
 * @param output  written by process 0 (never {@code null}; {@link MemorySegment#NULL} for none)
 * @param symbols objects passed to all processes (never {@code null})
 */
public record Args(MemorySegment input, MemorySegment output, List<Object> symbols) {

    /** No input, no output, no symbols (the C API's {@code LPF_NO_ARGS}). */
    public static final Args NONE = new Args(MemorySegment.NULL, MemorySegment.NULL, List.of());

    /** Validates and freezes the arguments. */
    public Args {
        Objects.requireNonNull(input, "Args: input (use MemorySegment.NULL for none)");
        Objects.requireNonNull(output, "Args: output (use MemorySegment.NULL for none)");
        symbols = List.copyOf(symbols);
    }

    /**
     * @param input  input for process 0
     * @param output output area of process 0
     * @return arguments without symbols
     */
    public static Args of(MemorySegment input, MemorySegment output) {
        return new Args(input, output, List.of());
    }

    /**
     * @param input   input for process 0
     * @param output  output area of process 0
     * @param symbols objects for every process
     * @return the arguments
     */
    public static Args of(MemorySegment input, MemorySegment output, Object... symbols) {
        return new Args(input, output, List.of(symbols));
    }

    /** @return these arguments without input and output, as processes other than 0 see them */
    public Args withoutIo() {
        return symbols.isEmpty() ? NONE : new Args(MemorySegment.NULL, MemorySegment.NULL, symbols);
    }
}
