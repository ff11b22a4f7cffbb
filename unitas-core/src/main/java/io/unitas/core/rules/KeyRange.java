package io.unitas.core.rules;

/**
 * An inclusive range of transformed keys, written {@code 0~1999} in rules files.
 *
 * @param first the smallest key in the range, {@code >= 0}
 * @param last  the largest key in the range, {@code >= first}
 */
public record KeyRange(long first, long last) {

    /** Rejects a negative or inverted range. */
    public KeyRange {
        if (first < 0 || last < first) {
            throw new IllegalArgumentException(
                    "range: " + first + "~" + last + " (expected: 0 <= first <= last)");
        }
    }

    /** Shorthand for {@code new KeyRange(first, last)}. */
    public static KeyRange of(long first, long last) {
        return new KeyRange(first, last);
    }

    /**
     * Parses {@code first~last} (or a single key {@code n}, meaning {@code n~n}).
     *
     * @throws IllegalArgumentException with a message naming the text and what was expected
     */
    public static KeyRange parse(String text) {
        String t = text == null ? "" : text.trim();
        int tilde = t.indexOf('~');
        long first = KeyTransform.none().apply(tilde < 0 ? t : t.substring(0, tilde).trim());
        long last = tilde < 0 ? first : KeyTransform.none().apply(t.substring(tilde + 1).trim());
        if (first < 0 || last < 0) {
            throw new IllegalArgumentException("'" + text + "' (expected: first~last, two whole numbers >= 0)");
        }
        if (last < first) {
            throw new IllegalArgumentException("'" + text + "' is inverted (expected: first <= last)");
        }
        return new KeyRange(first, last);
    }

    /** Whether {@code key} lies in this range. */
    public boolean contains(long key) {
        return key >= first && key <= last;
    }

    /** Whether the two ranges share a key. */
    public boolean overlaps(KeyRange other) {
        return first <= other.last && other.first <= last;
    }

    /** How many keys the range holds (saturating at {@link Long#MAX_VALUE}). */
    public long size() {
        long n = last - first + 1;
        return n <= 0 ? Long.MAX_VALUE : n;
    }

    /** {@code first~last}. */
    @Override
    public String toString() {
        return first + "~" + last;
    }
}
