package org.lpf4j.superstep;

import java.util.Arrays;

/**
 * The memory areas a sync of {@link Exchange} sends from and receives into in place, so that a
 * large put is received straight into its destination only if that area overlaps none of them.
 * O(areas) per check; the arrays grow by doubling and are kept from sync to sync.
 */
final class InPlaceAreas {
    /** Areas this rank sends from in place during the sync: [start, end) addresses. */
    private long[] sendingStart = new long[16], sendingEnd = new long[16];
    /** Set to 0 when a sync starts sending its large puts. */
    int sending;
    /** Large puts received straight into their destination: [start, end) addresses. */
    private long[] directStart = new long[16], directEnd = new long[16];
    /** Set to 0 when a sync starts placing the large puts it receives. */
    int direct;

    boolean canReceiveDirectly(long start, long size) {
        long end = start + size;
        for (int k = 0; k < sending; k++) if (start < sendingEnd[k] && sendingStart[k] < end) return false;
        for (int k = 0; k < direct; k++) if (start < directEnd[k] && directStart[k] < end) return false;
        if (direct == directStart.length) {
            directStart = Arrays.copyOf(directStart, direct * 2);
            directEnd = Arrays.copyOf(directEnd, direct * 2);
        }
        directStart[direct] = start;
        directEnd[direct++] = end;
        return true;
    }

    void addSending(long start, long end) {
        if (sending == sendingStart.length) {
            sendingStart = Arrays.copyOf(sendingStart, sending * 2);
            sendingEnd = Arrays.copyOf(sendingEnd, sending * 2);
        }
        sendingStart[sending] = start;
        sendingEnd[sending++] = end;
    }
}
