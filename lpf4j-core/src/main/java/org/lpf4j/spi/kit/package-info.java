/**
 * The engine kit: <strong>for engines and context decorators only</strong>, not for programs
 * (which use {@code org.lpf4j}). Everything here is true for any engine and is written once:
 * the threads engine, the debug layer and every future engine use the same code, so a rule
 * has one place.
 *
 * <h2>How to write an engine</h2>
 * An engine is a module that provides {@link org.lpf4j.spi.EngineProvider} (found by
 * {@link java.util.ServiceLoader}) whose {@code root()} returns a {@link org.lpf4j.Context}.
 * Its per-process context keeps:
 * <ul>
 * <li>a {@link org.lpf4j.spi.kit.SlotRegister}: {@code registerGlobal/registerLocal/deregister/
 *     resizeMemoryRegister} delegate to it (global ids agree on every process, activation at the
 *     next sync, reuse of freed ids, staged capacity); at a sync the engine resolves a remote
 *     global id with the target's {@link org.lpf4j.spi.kit.SlotRegister#globalSegment};</li>
 * <li>a {@link org.lpf4j.spi.kit.StagedCapacity} for its message queue: the engine reserves
 *     its own queue memory, then {@code stage}s; OOM becomes
 *     {@link org.lpf4j.spi.kit.StagedCapacity#outOfMemory} with no effect;</li>
 * <li>{@link org.lpf4j.spi.kit.RequestChecks#checkPut} / {@code checkGet} at the top of
 *     {@code put}/{@code get}: every argument rule and message, then the engine queues;</li>
 * <li>at the end of every sync: {@code register.capacity().applyAtSync()} and
 *     {@code queueCapacity.applyAtSync()};</li>
 * <li>a {@link org.lpf4j.spi.kit.SuperstepRecorder} for the JFR events: {@code begin()} at the
 *     start of {@code sync} (count what was queued only if it returns true), {@code commit} at its
 *     end; {@code beginSection}/{@code endSection} around each process's SPMD function;</li>
 * <li>{@code probe()}: {@link org.lpf4j.spi.kit.ProbeHarness#machine} with a fresh section of p
 *     processes, when the engine's sections run in one JVM (it reads and writes the disk cache,
 *     {@link org.lpf4j.spi.kit.ProbeCache}); {@link org.lpf4j.spi.kit.ProbeHarness#fitFor} with a
 *     supplier that runs {@link org.lpf4j.spi.kit.ProbeHarness#cachedOrMeasured} (pid 0 reads the
 *     disk cache and decides for everyone) or {@link org.lpf4j.spi.kit.ProbeHarness#measure} on a
 *     fresh section when they span JVMs (every process must decide alike whether to measure).</li>
 * <li>an engine whose processes span JVMs counts what each sends in a
 *     {@link org.lpf4j.spi.kit.WireCounts} (messages and bytes, payload apart from meta-data, and
 *     connections), which its context offers as a {@link org.lpf4j.spi.kit.WireCounts.Source}:
 *     {@code lpf run --profile}, {@code lpf bench} and the JFR superstep event
 *     ({@link org.lpf4j.spi.kit.SuperstepRecorder#wire}) read it;</li>
 * <li>small exchanges at the start of a section (pid 0's bytes to everyone, everyone's bytes to
 *     everyone): {@link org.lpf4j.spi.kit.StartCollectives}, over any engine's public context.</li>
 * </ul>
 * What stays the engine's: moving the bytes at the sync (and checking the remote area's bounds
 * there), the barrier, failure propagation ({@link org.lpf4j.FatalException} at every process's
 * next sync), {@code exec/rehook/hook}. Decorators extend
 * {@link org.lpf4j.spi.kit.ForwardingContext}; the debug layer checks requests with
 * {@link org.lpf4j.spi.kit.RequestChecks#putViolation} over its own
 * {@link org.lpf4j.spi.kit.SlotView}. {@code lpf4j-conformance}'s test tree has a complete
 * engine written only against this package ({@code SimpleEngine}).
 */
package org.lpf4j.spi.kit;
