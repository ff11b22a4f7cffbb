package io.unitas.core.capacity;

/** The 64-bit FNV-1a hash of a string's UTF-8 bytes, computed without encoding the string first. */
final class Fnv1a {

    private static final long OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    private Fnv1a() {}

    static long hash64(String s) {
        long h = OFFSET_BASIS;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                h = (h ^ c) * PRIME;
            } else if (c < 0x800) {
                h = (h ^ (0xC0 | (c >> 6))) * PRIME;
                h = (h ^ (0x80 | (c & 0x3F))) * PRIME;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                h = (h ^ (0xF0 | (cp >> 18))) * PRIME;
                h = (h ^ (0x80 | ((cp >> 12) & 0x3F))) * PRIME;
                h = (h ^ (0x80 | ((cp >> 6) & 0x3F))) * PRIME;
                h = (h ^ (0x80 | (cp & 0x3F))) * PRIME;
            } else if (Character.isSurrogate(c)) {
                // An unpaired surrogate encodes as '?', exactly as String.getBytes(UTF_8) does.
                h = (h ^ '?') * PRIME;
            } else {
                h = (h ^ (0xE0 | (c >> 12))) * PRIME;
                h = (h ^ (0x80 | ((c >> 6) & 0x3F))) * PRIME;
                h = (h ^ (0x80 | (c & 0x3F))) * PRIME;
            }
        }
        return h;
    }
}
