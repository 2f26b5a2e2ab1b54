package org.lpf4j.examples;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * Sample sort's local steps. The merge from both ends against sorting the concatenation: runs
 * of every length 0 … 12 (one empty, one used up long before the other, odd and even totals),
 * few and many distinct keys (ties across the runs), at offsets inside a larger array whose
 * other entries must stay untouched. The local sort through buckets (blocks of 2^16 values and
 * more): the whole program against {@code Arrays.sort}, with random keys (negative and
 * positive, all buckets) and with few or small keys (all sharing their top bits: one bucket).
 */
class SampleSortLocalTest {

    @Test
    void mergesLikeSortingTheConcatenation() {
        SplittableRandom r = new SplittableRandom(3);
        for (int trial = 0; trial < 100_000; trial++) {
            int n1 = r.nextInt(13), n2 = r.nextInt(13), keys = 1 + r.nextInt(trial % 3 == 0 ? 3 : 1000);
            int a = r.nextInt(3), mid = a + n1, b = mid + n2;
            long[] src = new long[b + r.nextInt(3)];
            for (int i = 0; i < src.length; i++) src[i] = r.nextInt(keys) - keys / 2;
            Arrays.sort(src, a, mid);
            Arrays.sort(src, mid, b);
            long[] want = new long[src.length], got = new long[src.length];
            Arrays.fill(want, 77);
            Arrays.fill(got, 77);
            System.arraycopy(src, a, want, a, b - a);
            Arrays.sort(want, a, b);
            SampleSort.Instance.mergeRuns(src, a, mid, b, got);
            assertArrayEquals(want, got,
                    () -> Arrays.toString(src) + " runs [" + a + ", " + mid + ") [" + mid + ", " + b + ")");
        }
    }

    @Test
    void mergesLongSkewedRuns() {
        SplittableRandom r = new SplittableRandom(5);
        for (int n1 : new int[] {1, 1000, 99_999}) {
            int n = 100_000;
            long[] src = new long[n];
            for (int i = 0; i < n; i++) src[i] = i < n1 ? r.nextLong(1000) : r.nextLong();
            Arrays.sort(src, 0, n1);
            Arrays.sort(src, n1, n);
            long[] want = src.clone(), got = new long[n];
            Arrays.sort(want);
            SampleSort.Instance.mergeRuns(src, 0, n1, n, got);
            assertArrayEquals(want, got, "n1=" + n1);
        }
    }

    @Test
    void sortsLargeBlocksThroughBuckets() {
        for (int p : new int[] {1, 3}) {
            for (long keys : new long[] {0, 3, 1L << 20}) {
                ProgramsTest.assertSampleSortEqualsArraysSort(p, 400_000, 9, keys);
            }
        }
    }
}
