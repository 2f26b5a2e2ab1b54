package org.lpf4j.debug;

/**
 * A request aimed at this process, from itself or described by another.
 *
 * @param request  the request (its origin, kind, remote area, call and site)
 * @param slotId   the id of the slot it names here
 * @param slotName the slot as its origin names it
 */
record Incoming(Request request, int slotId, String slotName) {}
