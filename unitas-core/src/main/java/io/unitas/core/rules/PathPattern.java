package io.unitas.core.rules;

import java.util.ArrayList;
import java.util.List;

/**
 * A path key source's pattern, {@code /wallets/{userId}}: literal segments and exactly one variable segment, whose
 * value is the key. The pattern matches a path's leading segments, so {@code /wallets/42/deposits} yields {@code 42}
 * too; a path with fewer segments, or another literal, yields no key. Literal segments match exactly (paths are
 * case-sensitive, RFC 3986 section 6.2.2.1); the key is percent-decoded.
 */
final class PathPattern {

    private final String pattern;
    /** The literal segments, with {@code null} in the variable's place. */
    private final String[] segments;
    private final String variable;

    private PathPattern(String pattern, String[] segments, String variable) {
        this.pattern = pattern;
        this.segments = segments;
        this.variable = variable;
    }

    /**
     * Parses {@code pattern}.
     *
     * @throws IllegalArgumentException naming what is wrong and what was expected
     */
    static PathPattern parse(String pattern) {
        String expected = " (expected: a path such as /wallets/{userId}, with exactly one {variable} segment)";
        if (!pattern.startsWith("/")) {
            throw new IllegalArgumentException("'" + pattern + "' does not start with '/'" + expected);
        }
        List<String> segments = new ArrayList<>();
        String variable = null;
        for (String segment : pattern.substring(1).split("/", -1)) {
            if (segment.isEmpty()) {
                throw new IllegalArgumentException("'" + pattern + "' has an empty segment" + expected);
            }
            boolean opens = segment.indexOf('{') >= 0;
            boolean closes = segment.indexOf('}') >= 0;
            if (opens || closes) {
                if (!(segment.length() > 2 && segment.startsWith("{") && segment.endsWith("}")
                      && segment.indexOf('{', 1) < 0 && segment.indexOf('}') == segment.length() - 1)) {
                    throw new IllegalArgumentException("'" + pattern + "': segment '" + segment
                                                       + "' is not a whole {variable}" + expected);
                }
                if (variable != null) {
                    throw new IllegalArgumentException("'" + pattern + "' has more than one variable"
                                                       + expected);
                }
                variable = segment.substring(1, segment.length() - 1);
                segments.add(null);
            } else {
                segments.add(segment);
            }
        }
        if (variable == null) {
            throw new IllegalArgumentException("'" + pattern + "' has no {variable}" + expected);
        }
        return new PathPattern(pattern, segments.toArray(new String[0]), variable);
    }

    /** The variable's name ({@code userId}). */
    String variable() {
        return variable;
    }

    /**
     * The key in {@code path} (a request path without its query, percent-encoded as sent), or {@code null} when the
     * path does not match. Allocates only the key.
     */
    String match(String path) {
        if (path == null || path.isEmpty() || path.charAt(0) != '/') {
            return null;
        }
        int start = 1;
        String key = null;
        for (String literal : segments) {
            if (start > path.length()) {
                return null;
            }
            int end = path.indexOf('/', start);
            if (end < 0) {
                end = path.length();
            }
            if (literal == null) {
                if (end == start) {
                    return null;
                }
                key = decode(path, start, end);
            } else if (end - start != literal.length() || !path.startsWith(literal, start)) {
                return null;
            }
            start = end + 1;
        }
        return key;
    }

    /**
     * {@code s[start, end)} with its percent-escapes decoded. Keys are ASCII (user ids, tenant names); a segment
     * whose escapes are malformed or stand for other bytes is taken as it is, so one spelling never yields two keys.
     */
    private static String decode(String s, int start, int end) {
        int percent = s.indexOf('%', start);
        if (percent < 0 || percent >= end) {
            return s.substring(start, end);
        }
        char[] out = new char[end - start];
        int n = 0;
        for (int i = start; i < end; i++) {
            char c = s.charAt(i);
            if (c == '%') {
                int hi = i + 2 < end ? Character.digit(s.charAt(i + 1), 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(s.charAt(i + 2), 16);
                if (lo < 0 || hi >= 8) {
                    return s.substring(start, end);
                }
                c = (char) (hi << 4 | lo);
                i += 2;
            }
            out[n++] = c;
        }
        return new String(out, 0, n);
    }

    @Override
    public String toString() {
        return pattern;
    }
}
