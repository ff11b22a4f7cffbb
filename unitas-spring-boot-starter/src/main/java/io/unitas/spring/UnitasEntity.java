package io.unitas.spring;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToLongFunction;

import io.unitas.core.crdt.MergePolicy;
import io.unitas.data.merge.MergedEntity;
import io.unitas.data.remote.EntityReader;
import io.unitas.data.remote.StoredEntity;

/**
 * One entity type a service lets the regions read from its home, declared once as a bean: its type name, its local
 * read by key (a user id), and its codec. The reading side ({@link UnitasReadiness#entity(UnitasEntity)}) decodes
 * what the home sends; the serving side (the home-read server the starter runs) reads and encodes it, so both ends
 * agree by construction. Regions that run different builds compare each type's {@link Builder#codecId codec id} at
 * start, and a region whose codec differs from a peer's does not start.
 *
 * <pre>{@code
 * @Bean
 * UnitasEntity<Wallet> wallets(WalletRepository repository) {
 *     return UnitasEntity.builder("wallet", repository::find)
 *             .codec(Wallet::encode, Wallet::decode)
 *             .codecId("wallet-json/1")
 *             .version(Wallet::version)
 *             .build();
 * }
 * }</pre>
 *
 * <p>An entity written in more than one region (a failover window, a partition) declares how concurrent writes
 * merge: its value is then the replicated state of an {@code io.unitas.core.crdt} policy, written through
 * {@link UnitasMerge}, and the starter's applier merges each arriving change into the stored state instead of
 * overwriting it; what the policy cannot merge is kept as siblings and listed ({@code /actuator/siblings}).
 * <pre>{@code
 * @Bean
 * UnitasEntity<PnCounter> likes(UnitasMerge merge) {
 *     return UnitasEntity.<PnCounter>builder("likes", key -> merge.read("likes", key))
 *             .codec(Codec.counter()::encode, Codec.counter()::decode)
 *             .mergePolicy(MergePolicy.counter())
 *             .stalenessBudget(Duration.ofSeconds(5))
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
    private final MergePolicy<V> mergePolicy;
    private final MergedEntity.Materializer<V> materializer;
    private final Duration stalenessBudget;
    private final String codecId;

    private UnitasEntity(Builder<V> b) {
        this.codecId = b.codecId;
        this.type = b.type;
        this.local = b.local;
        this.encode = b.encode;
        this.decode = b.decode;
        this.version = b.version;
        this.mergePolicy = b.mergePolicy;
        this.materializer = b.materializer;
        this.stalenessBudget = b.stalenessBudget;
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

    /** The identity of its codec the regions compare at start ("" when none was declared). */
    public String codecId() {
        return codecId;
    }

    /** This region's read of {@code key}. */
    public Optional<V> local(String key) {
        return local.apply(key);
    }

    /** The entity from the bytes its home sent. */
    public V decode(byte[] payload) {
        return decode.apply(payload);
    }

    /** How concurrent writes of this entity merge; empty when a change overwrites (a handler bean writes it). */
    public Optional<MergePolicy<V>> mergePolicy() {
        return Optional.ofNullable(mergePolicy);
    }

    /** How stale a copy of this entity may be in another region; empty when none is declared. */
    public Optional<Duration> stalenessBudget() {
        return Optional.ofNullable(stalenessBudget);
    }

    /** The data layer's declaration of this merged entity, its state stored by this entity's codec. */
    MergedEntity<V> merged() {
        if (mergePolicy == null) {
            throw new IllegalStateException("UnitasEntity '" + type + "': no merge policy");
        }
        MergedEntity<V> merged = MergedEntity.of(type, mergePolicy,
                                                 io.unitas.data.merge.Codec.of(encode, decode));
        return materializer == null ? merged : merged.materializedBy(materializer);
    }

    /** The version of {@code value} in its home store (what a cache entry and its invalidations carry). */
    long version(V value) {
        return version.applyAsLong(value);
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
        private MergePolicy<V> mergePolicy;
        private MergedEntity.Materializer<V> materializer;
        private Duration stalenessBudget;
        private String codecId = "";

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

        /**
         * Names the codec and its version ({@code wallet-json/2}; letters, digits and {@code . _ - / : +}, at most
         * 100): at start each region compares it with its peers' for this type, and a difference stops the start.
         * Change it whenever the bytes change. Without it ("" on the wire) a codec is compared with "" only.
         */
        public Builder<V> codecId(String id) {
            if (id == null || !id.matches("[A-Za-z0-9._/:+-]{1,100}")) {
                throw new UnitasConfigurationException(java.util.List.of("UnitasEntity '" + type + "': codec id '"
                        + id + "' (expected: letters, digits, '.', '_', '-', '/', ':' or '+', at most 100)"));
            }
            this.codecId = id;
            return this;
        }

        /** The entity's version in its home store ({@code >= 0}, higher is newer; default 0). */
        public Builder<V> version(ToLongFunction<V> version) {
            this.version = Objects.requireNonNull(version, "version");
            return this;
        }

        /**
         * Merges concurrent writes by {@code policy} ({@code MergePolicy.lastWriterWins()}, {@code counter()},
         * {@code orSet()}, {@code orMap()}, {@code siblings()}): the entity's value is the policy's replicated state,
         * the codec encodes that state (canonically: equal states, equal bytes), and it is written with
         * {@link UnitasMerge}. No {@link UnitasChangeHandler} bean is declared for it: the starter's applier merges.
         */
        public Builder<V> mergePolicy(MergePolicy<V> policy) {
            this.mergePolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Also writes each merged state into the service's own table, in the transaction that stored it (a local
         * write, a change arriving, a resolution); only with {@link #mergePolicy}.
         */
        public Builder<V> materializedBy(MergedEntity.Materializer<V> materializer) {
            this.materializer = Objects.requireNonNull(materializer, "materializer");
            return this;
        }

        /**
         * How stale this entity's copy in another region may be: the replication lag of its changes is exported
         * against it ({@code unitas.consistency.lag} beside {@code unitas.consistency.budget}) and reported by
         * {@code /actuator/health/unitas} when exceeded.
         */
        public Builder<V> stalenessBudget(Duration budget) {
            Objects.requireNonNull(budget, "budget");
            if (budget.isZero() || budget.isNegative()) {
                throw new UnitasConfigurationException(java.util.List.of("UnitasEntity '" + type
                        + "': staleness budget " + budget + " (expected: > 0)"));
            }
            this.stalenessBudget = budget;
            return this;
        }

        /** Builds it. */
        public UnitasEntity<V> build() {
            if (encode == null) {
                throw new UnitasConfigurationException(java.util.List.of("UnitasEntity '" + type
                        + "': codec not set (expected: codec(encode, decode))"));
            }
            if (materializer != null && mergePolicy == null) {
                throw new UnitasConfigurationException(java.util.List.of("UnitasEntity '" + type
                        + "': materializedBy without a merge policy (expected: mergePolicy(...) as well)"));
            }
            return new UnitasEntity<>(this);
        }
    }
}
