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

    /** A transform reduced modulo N: its key space is {@code 0~N-1}; equal when of the same kind and N. */
    abstract static class Modular implements KeyTransform {
        final long n;
        private final String label;

        Modular(String label, long n) {
            this.label = label;
            this.n = n;
        }

        @Override
        public final long space() {
            return n;
        }

        @Override
        public final boolean isModular() {
            return true;
        }

        @Override
        public final String toString() {
            return label + " " + n;
        }

        @Override
        public final boolean equals(Object o) {
            return o != null && o.getClass() == getClass() && ((Modular) o).n == n;
        }

        @Override
        public final int hashCode() {
            return label.hashCode() * 31 + Long.hashCode(n);
        }
    }

    /** Decimal digits of any length, reduced as they are read so that no number ever overflows. */
    static final class Mod extends Modular {
        private static final long REDUCE_AT = 100_000_000_000_000_000L;

        Mod(long n) {
            super("mod", n);
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
                acc = acc * 10 + d;
                // Reduce only when needed: below 10^17, acc * 10 + 9 stays under 2^63 (and n <= 10^15 < 10^17).
                if (acc >= REDUCE_AT) {
                    acc %= n;
                }
            }
            return acc % n;
        }
    }

    /** FNV-1a of the key's UTF-8 bytes, unsigned, modulo N; every string is a good key. */
    static final class HashMod extends Modular {
        HashMod(long n) {
            super("hash-mod", n);
        }

        @Override
        public long apply(String key) {
            return Long.remainderUnsigned(fnv1a64(key), n);
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
