package io.unitas.core.internal;

/**
 * CRC-32 (IEEE 802.3, the one of {@code java.util.zip.CRC32} and zlib) of a key's UTF-8 bytes, computed without
 * encoding the key into a new array: the hash that sticks one user to one address (seed 003, 2.5).
 */
public final class Crc32 {

    private static final int[] TABLE = new int[256];

    static {
        for (int n = 0; n < 256; n++) {
            int c = n;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1;
            }
            TABLE[n] = c;
        }
    }

    private Crc32() {}

    /** The CRC-32 of {@code key}'s UTF-8 encoding (an unpaired surrogate encodes as '?', as String.getBytes does). */
    public static int of(CharSequence key) {
        int crc = ~0;
        int n = key.length();
        for (int i = 0; i < n; i++) {
            char c = key.charAt(i);
            if (c < 0x80) {
                crc = update(crc, c);
            } else if (c < 0x800) {
                crc = update(crc, 0xC0 | (c >> 6));
                crc = update(crc, 0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(key.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, key.charAt(++i));
                crc = update(crc, 0xF0 | (cp >> 18));
                crc = update(crc, 0x80 | ((cp >> 12) & 0x3F));
                crc = update(crc, 0x80 | ((cp >> 6) & 0x3F));
                crc = update(crc, 0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                crc = update(crc, '?');
            } else {
                crc = update(crc, 0xE0 | (c >> 12));
                crc = update(crc, 0x80 | ((c >> 6) & 0x3F));
                crc = update(crc, 0x80 | (c & 0x3F));
            }
        }
        return ~crc;
    }

    /** The CRC-32 of {@code length} bytes of {@code bytes} from {@code offset}. */
    public static int of(byte[] bytes, int offset, int length) {
        int crc = ~0;
        for (int i = offset; i < offset + length; i++) {
            crc = update(crc, bytes[i]);
        }
        return ~crc;
    }

    /** The index in [0, n) that {@code key} sticks to: its CRC-32, unsigned, modulo {@code n}. */
    public static int index(CharSequence key, int n) {
        if (n < 1) {
            throw new IllegalArgumentException("n: " + n + " (expected: >= 1)");
        }
        return (int) ((of(key) & 0xFFFF_FFFFL) % n);
    }

    private static int update(int crc, int b) {
        return TABLE[(crc ^ b) & 0xFF] ^ (crc >>> 8);
    }
}
