/**
 * The {@code boot} framework's session API, modelled on PMIx's synchronisation chapter: every
 * process {@linkplain org.lpf4j.spi.boot.BootSession#put puts} key-value pairs,
 * {@linkplain org.lpf4j.spi.boot.BootSession#commit commits} them, takes part in a
 * {@linkplain org.lpf4j.spi.boot.BootSession#fence fence} that (with collect-data) makes every
 * committed pair of the participants local, and then {@linkplain org.lpf4j.spi.boot.BootSession#get
 * gets} any process's values. Modules ({@link org.lpf4j.spi.BootModule}) open sessions;
 * {@link org.lpf4j.spi.boot.LocalJob} is the in-JVM implementation.
 */
package org.lpf4j.spi.boot;
