package io.unitas.core.rules;

import java.util.Locale;

/**
 * Turns a routing key, as found in a request, into a number that key ranges are matched against. Returns
 * {@link #BAD_KEY} instead of throwing when the key cannot be turned into a number, so lookups stay
 * exception-free.
 *
 * <p>The built-in transforms, by the names the rules file uses:
 * <ul>
 *   <li>{@code none}: the key is a decimal number {@code 0..2^63-1}, used as is;</li>
 *   <li>{@code mod N}: the key is a decimal number of any length, reduced modulo N;</li>
 *   <li>{@code hash-mod N}: any string; the 64-bit FNV-1a hash of its UTF-8 bytes, as an unsigned number,
 *       modulo N (see {@link #fnv1a64(CharSequence)}).</li>
 * </ul>
 * Decimal means ASCII digits only: no sign, no spaces, no fraction; leading zeros are fine.
 */
@FunctionalInterface
public interface KeyTransform {

    /** What {@link #apply} returns for a key that the transform cannot turn into a number. */
    long BAD_KEY = -1;

    /** Largest N accepted by {@link #mod} and {@link #hashMod}. */
    long MAX_MODULUS = 1_000_000_000_000_000L; // 10^15

    /** The key's number, {@code 0 <= n < space()}, or {@link #BAD_KEY}. Must not allocate or throw. */
    long apply(String key);

    /**
     * The size of the key space: every result is below it. {@link Long#MAX_VALUE} (unbounded) unless the transform
     * reduces modulo N, in which case N, and the ranges must cover exactly {@code 0~N-1}.
     */
    default long space() {
        return Long.MAX_VALUE;
    }

    /** Whether results are reduced modulo {@link #space()}, so that every key lands inside {@code 0~space()-1}. */
    default boolean isModular() {
        return false;
    }

    /** The key is a non-negative decimal number, used as is. */
    static KeyTransform none() {
        return StandardTransforms.NONE;
    }

    /** The key is a non-negative decimal number of any length, reduced modulo {@code n} (AppActive's {@code mod 10000}). */
    static KeyTransform mod(long n) {
        return new StandardTransforms.Mod(checkModulus(n));
    }

    /** Any string key: {@code fnv1a64(key)} as an unsigned 64-bit number, modulo {@code n}. Stable across versions. */
    static KeyTransform hashMod(long n) {
        return new StandardTransforms.HashMod(checkModulus(n));
    }

    /**
     * Parses the rules file's notation: {@code none}, {@code mod N} or {@code hash-mod N}.
     *
     * @throws IllegalArgumentException with a message naming the text and what was expected
     */
    static KeyTransform parse(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("none")) {
            return none();
        }
        String[] parts = t.split("\\s+");
        if (parts.length == 2 && (parts[0].equals("mod") || parts[0].equals("hash-mod"))) {
            long n;
            try {
                n = Long.parseLong(parts[1]);
            } catch (NumberFormatException e) {
                n = 0;
            }
            if (n < 1 || n > MAX_MODULUS) {
                throw new IllegalArgumentException("'" + text + "' (expected: N between 1 and " + MAX_MODULUS + ")");
            }
            return parts[0].equals("mod") ? mod(n) : hashMod(n);
        }
        throw new IllegalArgumentException("'" + text + "' (expected: none, mod N or hash-mod N)");
    }

    /**
     * 64-bit FNV-1a of the UTF-8 encoding of {@code s}: offset basis {@code 0xcbf29ce484222325}, prime
     * {@code 0x100000001b3}, one round ({@code xor} then multiply) per byte. An unpaired surrogate encodes as
     * {@code '?'}, as {@link String#getBytes(java.nio.charset.Charset)} does. Allocation-free.
     */
    static long fnv1a64(CharSequence s) {
        return StandardTransforms.fnv1a64(s);
    }

    private static long checkModulus(long n) {
        if (n < 1 || n > MAX_MODULUS) {
            throw new IllegalArgumentException("modulus: " + n + " (expected: 1 <= N <= " + MAX_MODULUS + ")");
        }
        return n;
    }
}
