package io.unitas.cache.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

import io.unitas.cache.Invalidation;

/**
 * The record of an invalidation: the key as the record's key in UTF-8 (so one key's events stay in one partition, in
 * order), the value 17 bytes: format 1, the version, the timestamp in epoch milliseconds (big-endian longs).
 */
final class InvalidationCodec {

    static final byte FORMAT = 1;
    static final int LENGTH = 17;

    private InvalidationCodec() {
    }

    static byte[] key(Invalidation invalidation) {
        return invalidation.key().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] value(Invalidation invalidation) {
        return ByteBuffer.allocate(LENGTH).put(FORMAT).putLong(invalidation.version())
                .putLong(invalidation.timestamp().toEpochMilli()).array();
    }

    /** The invalidation in a record; throws {@link IllegalArgumentException} saying what was expected. */
    static Invalidation decode(byte[] key, byte[] value) {
        if (key == null) {
            throw new IllegalArgumentException("record key: null (expected: the cache key in UTF-8)");
        }
        String k;
        try {
            k = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(key)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("record key: not UTF-8 (expected: the cache key in UTF-8)");
        }
        if (value == null || value.length != LENGTH || value[0] != FORMAT) {
            throw new IllegalArgumentException("record value: " + (value == null ? "null" : value.length + " bytes"
                    + (value.length > 0 ? ", format " + value[0] : "")) + " (expected: " + LENGTH + " bytes, format "
                    + FORMAT + ", version and epoch millis)");
        }
        ByteBuffer b = ByteBuffer.wrap(value, 1, 16);
        return new Invalidation(k, b.getLong(), Instant.ofEpochMilli(b.getLong()));
    }
}
