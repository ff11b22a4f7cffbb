package io.unitas.spring;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToLongFunction;

import io.unitas.data.remote.EntityReader;
import io.unitas.data.remote.StoredEntity;

/**
 * One entity type a service lets the regions read from its home, declared once as a bean: its type name, its local
 * read by key (a user id), and its codec. The reading side ({@link UnitasReadiness#entity(UnitasEntity)}) decodes
 * what the home sends; the serving side (the home-read server the starter runs) reads and encodes it, so both ends
 * agree by construction.
 *
 * <pre>{@code
 * @Bean
 * UnitasEntity<Wallet> wallets(WalletRepository repository) {
 *     return UnitasEntity.builder("wallet", repository::find)
 *             .codec(Wallet::encode, Wallet::decode)
 *             .version(Wallet::version)
 *             .build();
 * }
 * }</pre>
 *
 * @param <V> the entity
 */
public final class UnitasEntity<V> {

    private final String type;
    private final Function<String, Optional<V>> local;
    private final Function<V, byte[]> encode;
    private final Function<byte[], V> decode;
    private final ToLongFunction<V> version;

    private UnitasEntity(Builder<V> b) {
        this.type = b.type;
        this.local = b.local;
        this.encode = b.encode;
        this.decode = b.decode;
        this.version = b.version;
    }

    /**
     * A builder for the entity type {@code type} ({@code [a-z0-9._-]}, at most 64), read in this region by
     * {@code local} (a repository's find by key; an exception counts as this store unavailable).
     */
    public static <V> Builder<V> builder(String type, Function<String, Optional<V>> local) {
        return new Builder<>(type, local);
    }

    /** The type name both sides use on the wire. */
    public String type() {
        return type;
    }

    /** This region's read of {@code key}. */
    public Optional<V> local(String key) {
        return local.apply(key);
    }

    /** The entity from the bytes its home sent. */
    public V decode(byte[] payload) {
        return decode.apply(payload);
    }

    /** The bytes the other regions decode, what the home sends and the outbox ships. */
    byte[] encode(V value) {
        return encode.apply(value);
    }

    /**
     * {@code type} when it is a valid entity type name; otherwise a start-up problem naming it (one line, no stack
     * trace).
     */
    static String checkedType(String type) {
        if (type == null || !type.matches("[a-z0-9][a-z0-9._-]{0,63}")) {
            throw new UnitasConfigurationException(java.util.List.of("entity type: '" + type
                    + "' (expected: lowercase letters, digits, '.', '_' or '-', at most 64)"));
        }
        return type;
    }

    /** How the home serves this type: the local read, encoded, with its version, acknowledged as read now. */
    EntityReader reader(Clock clock) {
        return (unit, key) -> local.apply(key).map(v -> new StoredEntity(version.applyAsLong(v), encode.apply(v),
                                                                         Instant.now(clock)));
    }

    @Override
    public String toString() {
        return "UnitasEntity{" + type + '}';
    }

    /** Collects an entity's declaration; {@link #codec} is required. */
    public static final class Builder<V> {
        private final String type;
        private final Function<String, Optional<V>> local;
        private Function<V, byte[]> encode;
        private Function<byte[], V> decode;
        private ToLongFunction<V> version = v -> 0;

        private Builder(String type, Function<String, Optional<V>> local) {
            this.type = checkedType(type);
            this.local = Objects.requireNonNull(local, "local");
        }

        /** How the entity travels between regions: the home encodes with {@code encode}, a reader decodes. */
        public Builder<V> codec(Function<V, byte[]> encode, Function<byte[], V> decode) {
            this.encode = Objects.requireNonNull(encode, "encode");
            this.decode = Objects.requireNonNull(decode, "decode");
            return this;
        }

        /** The entity's version in its home store ({@code >= 0}, higher is newer; default 0). */
        public Builder<V> version(ToLongFunction<V> version) {
            this.version = Objects.requireNonNull(version, "version");
            return this;
        }

        /** Builds it. */
        public UnitasEntity<V> build() {
            if (encode == null) {
                throw new UnitasConfigurationException(java.util.List.of("UnitasEntity '" + type
                        + "': codec not set (expected: codec(encode, decode))"));
            }
            return new UnitasEntity<>(this);
        }
    }
}
