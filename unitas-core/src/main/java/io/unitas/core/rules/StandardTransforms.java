package io.unitas.core.rules;

/** The built-in {@link KeyTransform}s and the FNV-1a hash they share. */
final class StandardTransforms {

    static final KeyTransform NONE = new None();

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private StandardTransforms() {}

    /** Decimal digits only; the value or {@link KeyTransform#BAD_KEY} on anything else or overflow. */
    static final class None implements KeyTransform {
        @Override
        public long apply(String key) {
            int n = key.length();
            if (n == 0) {
                return BAD_KEY;
            }
            long value = 0;
            for (int i = 0; i < n; i++) {
                int d = key.charAt(i) - '0';
                if (d < 0 || d > 9 || value > (Long.MAX_VALUE - d) / 10) {
                    return BAD_KEY;
                }
                value = value * 10 + d;
            }
            return value;
        }

        @Override
        public String toString() {
            return "none";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof None;
        }

        @Override
        public int hashCode() {
            return 0;
        }
    }

    /** Decimal digits of any length, reduced digit by digit so that no number ever overflows. */
    static final class Mod implements KeyTransform {
        private final long n;

        Mod(long n) {
            this.n = n;
        }

        @Override
        public long apply(String key) {
            int len = key.length();
            if (len == 0) {
                return BAD_KEY;
            }
            long acc = 0;
            for (int i = 0; i < len; i++) {
                int d = key.charAt(i) - '0';
                if (d < 0 || d > 9) {
                    return BAD_KEY;
                }
                // acc < n <= 10^15 keeps acc * 10 + 9 far below 2^63.
                acc = (acc * 10 + d) % n;
            }
            return acc;
        }

        @Override
        public long space() {
            return n;
        }

        @Override
        public boolean isModular() {
            return true;
        }

        @Override
        public String toString() {
            return "mod " + n;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Mod m && m.n == n;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(n);
        }
    }

    /** FNV-1a of the key's UTF-8 bytes, unsigned, modulo N; every string is a good key. */
    static final class HashMod implements KeyTransform {
        private final long n;

        HashMod(long n) {
            this.n = n;
        }

        @Override
        public long apply(String key) {
            return Long.remainderUnsigned(fnv1a64(key), n);
        }

        @Override
        public long space() {
            return n;
        }

        @Override
        public boolean isModular() {
            return true;
        }

        @Override
        public String toString() {
            return "hash-mod " + n;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof HashMod m && m.n == n;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(n) * 31 + 1;
        }
    }

    static long fnv1a64(CharSequence s) {
        long h = FNV_OFFSET;
        int len = s.length();
        for (int i = 0; i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                h = (h ^ c) * FNV_PRIME;
            } else if (c < 0x800) {
                h = (h ^ (0xc0 | c >> 6)) * FNV_PRIME;
                h = (h ^ (0x80 | c & 0x3f)) * FNV_PRIME;
            } else if (!Character.isSurrogate(c)) {
                h = (h ^ (0xe0 | c >> 12)) * FNV_PRIME;
                h = (h ^ (0x80 | c >> 6 & 0x3f)) * FNV_PRIME;
                h = (h ^ (0x80 | c & 0x3f)) * FNV_PRIME;
            } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                h = (h ^ (0xf0 | cp >> 18)) * FNV_PRIME;
                h = (h ^ (0x80 | cp >> 12 & 0x3f)) * FNV_PRIME;
                h = (h ^ (0x80 | cp >> 6 & 0x3f)) * FNV_PRIME;
                h = (h ^ (0x80 | cp & 0x3f)) * FNV_PRIME;
            } else {
                h = (h ^ '?') * FNV_PRIME; // an unpaired surrogate, encoded as String.getBytes(UTF_8) does
            }
        }
        return h;
    }
}
