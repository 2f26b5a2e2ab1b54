/**
 * Bulk synchronous message passing (the LPF BSMP library) on the public LPF core API.
 *
 * <p>A {@link org.lpf4j.bsmp.Bsmp} object alternates between a WRITE superstep, in which
 * processes {@linkplain org.lpf4j.bsmp.Bsmp#send send} tagged messages, and a READ superstep,
 * in which each process {@linkplain org.lpf4j.bsmp.Bsmp#move() moves} the messages addressed to
 * it out of its queue; {@link org.lpf4j.bsmp.Bsmp#sync()} switches between the two. See
 * {@link org.lpf4j.bsmp.Bsmp} for the protocol, its costs and how to size the LPF context for it.
 */
package org.lpf4j.bsmp;
