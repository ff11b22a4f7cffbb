package io.unitas.cache;

import java.nio.charset.StandardCharsets;

/**
 * Turns a cached value into the bytes kept on disk (L2) and back. {@link #decode} is called on every L2 hit, so it
 * should not do more than the value needs.
 */
public interface ValueCodec<V> {

    /** The bytes of {@code value}. */
    byte[] encode(V value);

    /** The value {@link #encode} wrote as {@code bytes}. */
    V decode(byte[] bytes);

    /** Strings as UTF-8. */
    static ValueCodec<String> utf8() {
        return new ValueCodec<>() {
            @Override
            public byte[] encode(String value) {
                return value.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public String decode(byte[] bytes) {
                return new String(bytes, StandardCharsets.UTF_8);
            }
        };
    }

    /** Byte arrays as they are (the cache neither copies nor changes them). */
    static ValueCodec<byte[]> bytes() {
        return new ValueCodec<>() {
            @Override
            public byte[] encode(byte[] value) {
                return value;
            }

            @Override
            public byte[] decode(byte[] bytes) {
                return bytes;
            }
        };
    }
}
