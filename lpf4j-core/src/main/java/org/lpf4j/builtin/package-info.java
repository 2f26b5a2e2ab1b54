/**
 * The core's own modules of the {@code boot}, {@code coll} and {@code cr} frameworks, found like
 * any other module through {@link java.util.ServiceLoader}. Not exported.
 */
package org.lpf4j.builtin;
