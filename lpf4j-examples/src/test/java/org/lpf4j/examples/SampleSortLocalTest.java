package org.lpf4j.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sample sort's local steps and its buckets. The partition around a splitter: ranges of every
 * length 0 … 12, keys below, among and above the values, few and many distinct values, at offsets
 * inside a larger array whose other entries must stay untouched. The buckets' bits. The whole
 * program against {@code Arrays.sort} at sizes with buckets, at every p: random keys (negative and
 * positive, all buckets), few keys (many equal values, equal splitters) and small keys (all
 * sharing their top bits: one bucket, every splitter in it; the sort of a received bucket then
 * finds all of them in one part, or the bucket too large for its scratch array).
 */
class SampleSortLocalTest {

    @Test
    void partitionPutsTheValuesUpToTheKeyFirst() {
        SplittableRandom r = new SplittableRandom(3);
        for (int trial = 0; trial < 100_000; trial++) {
            int len = r.nextInt(13), keys = 1 + r.nextInt(trial % 3 == 0 ? 3 : 1000);
            int lo = r.nextInt(3), hi = lo + len;
            long[] a = new long[hi + r.nextInt(3)];
            for (int i = 0; i < a.length; i++) a[i] = r.nextInt(keys) - keys / 2;
            long key = r.nextInt(keys + 2) - keys / 2 - 1;
            long[] before = a.clone();
            int cut = SampleSort.Instance.partition(a, lo, hi, key);
            String what = Arrays.toString(before) + " [" + lo + ", " + hi + ") key " + key + ": " + Arrays.toString(a);
            assertTrue(lo <= cut && cut <= hi, what);
            for (int i = lo; i < cut; i++) assertTrue(a[i] <= key, what);
            for (int i = cut; i < hi; i++) assertTrue(a[i] > key, what);
            for (int i = 0; i < a.length; i++) {
                if (i < lo || i >= hi) assertEquals(before[i], a[i], what);
            }
            long[] x = Arrays.copyOfRange(before, lo, hi), y = Arrays.copyOfRange(a, lo, hi);
            Arrays.sort(x);
            Arrays.sort(y);
            assertArrayEquals(x, y, what);
        }
    }

    @Test
    void bucketsHoldSixteenToThirtyTwoThousandValues() {
        assertEquals(0, SampleSort.Instance.bitsFor(0));
        assertEquals(0, SampleSort.Instance.bitsFor(32767));
        assertEquals(1, SampleSort.Instance.bitsFor(32768));
        assertEquals(4, SampleSort.Instance.bitsFor(1 << 18));
        assertEquals(9, SampleSort.Instance.bitsFor(10_000_000));
        assertEquals(9, SampleSort.Instance.bitsFor(Long.MAX_VALUE));
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void sortsThroughBuckets(int p) {
        // 2^18 values: 16 buckets, random keys; keys 3: duplicates; 2^20 and below: one bucket,
        // larger than the scratch array of a bucket's sort unless p = 8; 10^5 values: 4 buckets,
        // and at p ≥ 3 keys below 2^20 fit the scratch array and all share one part
        for (long keys : new long[] {0, 1, 3, 1L << 20, Long.MAX_VALUE / 3}) {
            ProgramsTest.assertSampleSortEqualsArraysSort(p, 1 << 18, 9, keys);
            ProgramsTest.assertSampleSortEqualsArraysSort(p, 100_000, 9, keys);
        }
    }
}
