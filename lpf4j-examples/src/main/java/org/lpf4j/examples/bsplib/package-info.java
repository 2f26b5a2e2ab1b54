/**
 * BSPlib programs, each an {@link org.lpf4j.Spmd} that {@code lpf run -p N <class> [args]} runs
 * and each checking its result against a sequential computation: {@link
 * org.lpf4j.examples.bsplib.SumOfPids}, {@link org.lpf4j.examples.bsplib.Reverse}, {@link
 * org.lpf4j.examples.bsplib.InnerProduct} and {@link org.lpf4j.examples.bsplib.LuDecomposition}
 * (BSPedupack's dense LU with partial pivoting).
 */
package org.lpf4j.examples.bsplib;
