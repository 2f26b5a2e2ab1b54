package org.lpf4j.spi;

import java.util.Collection;
import java.util.Locale;

/** Near-match suggestions for misspelt keys and names (edit distance). */
final class Suggest {
    private Suggest() {}

    /**
     * @param wrong      what the user wrote
     * @param candidates the valid words
     * @return the candidate nearest to {@code wrong} if it is near enough to be a typo (edit
     *         distance at most a third of its length, at least 2), else {@code null}. Costs
     *         O(|candidates| · length²).
     */
    static String nearest(String wrong, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        String w = wrong.toLowerCase(Locale.ROOT);
        for (String c : candidates) {
            int d = distance(w, c.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = c;
            }
        }
        int limit = Math.max(2, wrong.length() / 3);
        return bestDistance <= limit ? best : null;
    }

    /** Levenshtein distance with transpositions counted as one edit. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) d[i][0] = i;
        for (int j = 0; j <= b.length(); j++) d[0][j] = j;
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int v = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    v = Math.min(v, d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        return d[a.length()][b.length()];
    }
}
