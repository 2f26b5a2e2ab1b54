/**
 * Bulk synchronous message passing (the LPF BSMP library) on the public LPF core API, with one
 * deliberate deviation from the specification: {@link org.lpf4j.bsmp.Bsmp#sync()} called in
 * WRITE mode makes <b>two</b> {@code ctx.sync()} calls where the specification's "LPF usage" of
 * {@code lpf_bsmp_sync} says exactly one (from READ mode it makes one, as specified). The extra
 * superstep exchanges per-destination summaries so that each receiver places its senders'
 * records itself: any number of senders can send to one pid in one superstep without their
 * records colliding, and the message buffers do not grow with p (no per-sender regions; only 32
 * bytes of summary per process). A program that counts supersteps must count two for a BSMP
 * sync from WRITE.
 *
 * <p>A {@link org.lpf4j.bsmp.Bsmp} object alternates between a WRITE superstep, in which
 * processes {@linkplain org.lpf4j.bsmp.Bsmp#send send} tagged messages, and a READ superstep,
 * in which each process {@linkplain org.lpf4j.bsmp.Bsmp#move() moves} the messages addressed to
 * it out of its queue; {@link org.lpf4j.bsmp.Bsmp#sync()} switches between the two. See
 * {@link org.lpf4j.bsmp.Bsmp} for the protocol, its costs and how to size the LPF context for it.
 */
package org.lpf4j.bsmp;
