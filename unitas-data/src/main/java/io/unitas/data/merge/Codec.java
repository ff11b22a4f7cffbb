package io.unitas.data.merge;

import io.unitas.core.crdt.LwwRegister;
import io.unitas.core.crdt.MergePolicy;
import io.unitas.core.crdt.OrMap;
import io.unitas.core.crdt.OrSet;
import io.unitas.core.crdt.PnCounter;
import io.unitas.core.crdt.Siblings;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Function;

/**
 * How a value, or an entity's whole replicated state, is written as bytes: what a change carries between regions and
 * what {@code unitas_merge_state} stores. The state codecs are canonical (equal states give equal bytes, whatever
 * order their sets and maps iterate in), because reconciliation compares copies by digests of these bytes.
 *
 * @param <T> the value or state
 */
public interface Codec<T> {

    /** {@code value} as bytes. */
    byte[] encode(T value);

    /**
     * The value {@code bytes} hold.
     *
     * @throws IllegalArgumentException when they are not an encoding of this codec, saying what was expected
     */
    T decode(byte[] bytes);

    /** A codec from two functions (a service's own encoding of a value). */
    static <T> Codec<T> of(Function<T, byte[]> encode, Function<byte[], T> decode) {
        Objects.requireNonNull(encode, "encode");
        Objects.requireNonNull(decode, "decode");
        return new Codec<>() {
            @Override
            public byte[] encode(T value) {
                return encode.apply(value);
            }

            @Override
            public T decode(byte[] bytes) {
                return decode.apply(bytes);
            }
        };
    }

    /** Strings as UTF-8. */
    static Codec<String> utf8() {
        return of(s -> s.getBytes(StandardCharsets.UTF_8), b -> new String(b, StandardCharsets.UTF_8));
    }

    /** A last-writer-wins register: its value, version vector, commit timestamp and region. */
    static <V> Codec<LwwRegister<V>> lww(Codec<V> values) {
        return new StateCodecs.LwwCodec<>(values);
    }

    /** A PN-counter: each replica's increments and decrements. */
    static Codec<PnCounter> counter() {
        return StateCodecs.COUNTER;
    }

    /** An OR-set: each element with the dots of its adds, and the context. */
    static <E> Codec<OrSet<E>> orSet(Codec<E> elements) {
        return new StateCodecs.OrSetCodec<>(elements);
    }

    /** An OR-map whose concurrent writes of one key are read through {@code valuePolicy}. */
    static <K, V> Codec<OrMap<K, V>> orMap(Codec<K> keys, Codec<V> values, MergePolicy<V> valuePolicy) {
        return new StateCodecs.OrMapCodec<>(keys, values, valuePolicy);
    }

    /** Siblings: every concurrent version with its vector. */
    static <V> Codec<Siblings<V>> siblings(Codec<V> values) {
        return new StateCodecs.SiblingsCodec<>(values);
    }
}
