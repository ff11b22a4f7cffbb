package io.unitas.dns;

/** Bit arithmetic on address bytes, most significant bit first. */
final class Bits {

    private Bits() {
    }

    /** A copy of {@code address} with every bit after the first {@code bits} cleared. */
    static byte[] truncate(byte[] address, int bits) {
        byte[] out = address.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.max(0, Math.min(8, bits - i * 8));
            out[i] = (byte) (out[i] & (0xff00 >> keep));
        }
        return out;
    }

    /** How many leading bits {@code a} and {@code b} (of the same length) share. */
    static int common(byte[] a, byte[] b) {
        for (int i = 0; i < a.length; i++) {
            int x = (a[i] ^ b[i]) & 0xff;
            if (x != 0) {
                return i * 8 + Integer.numberOfLeadingZeros(x) - 24;
            }
        }
        return a.length * 8;
    }
}
