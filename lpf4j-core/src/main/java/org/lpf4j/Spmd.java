package org.lpf4j;

import java.io.Serializable;

/**
 * The SPMD function of an LPF section (the C API's {@code lpf_spmd_t}): every process of the
 * section runs it once with its own {@link Context}.
 *
 * <p>The process id, the number of processes and the arguments are available from the context
 * ({@link Context#pid()}, {@link Context#nprocs()}, {@link Context#args()}).
 *
 * <p>Returning normally ends the process's part of the section. A process that returns or throws
 * while other processes still call {@link Context#sync()} puts the section in the failure state:
 * their next sync throws {@link FatalException}, and the {@code exec}/{@code hook}/{@code rehook}
 * that started the section throws a {@link FatalException} carrying the thrown exceptions.
 *
 * <p>It is {@link Serializable} so that multi-process engines can ship it to every process: a
 * lambda whose captured values are serializable (or a named class) crosses JVMs.
 */
@FunctionalInterface
public interface Spmd extends Serializable {
    /**
     * Runs this process's part of the SPMD section.
     *
     * @param ctx this process's context, valid until this method returns
     * @throws Exception anything; it puts the section in the failure state
     */
    void run(Context ctx) throws Exception;
}
