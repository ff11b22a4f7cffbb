package io.unitas.data.merge;

import io.unitas.core.crdt.MergePolicy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One kind of entity a service writes in more than one region and merges by a declared policy instead of
 * overwriting: its type name (the changes' {@code entityType}), its {@link MergePolicy} over its replicated state,
 * the state's {@link Codec}, and optionally how the merged state is written into the service's own table.
 *
 * <pre>{@code
 * MergedEntity<PnCounter> likes = MergedEntity.of("likes", MergePolicy.counter(), Codec.counter())
 *         .materializedBy((tx, key, state) -> {
 *             try (PreparedStatement ps = tx.prepareStatement(
 *                     "INSERT INTO likes (post_id, n) VALUES (?, ?)"
 *                     + " ON CONFLICT (post_id) DO UPDATE SET n = EXCLUDED.n")) {
 *                 ps.setString(1, key);
 *                 ps.setLong(2, state.value());
 *                 ps.executeUpdate();
 *             }
 *         });
 * }</pre>
 *
 * @param <S> the replicated state (an {@code io.unitas.core.crdt} type, or the service's own join)
 */
public final class MergedEntity<S> {

    /**
     * Writes the value of a merged state into the service's own table, in the transaction that stored it (a local
     * write, a change arriving, a repair, a resolution), so the service reads its table as before.
     *
     * @param <S> the replicated state
     */
    @FunctionalInterface
    public interface Materializer<S> {

        /** Writes {@code state}'s value under {@code key} with {@code transaction}. */
        void write(Connection transaction, String key, S state) throws SQLException;

        /** Removes {@code key} (reconciliation found a row neither its home nor this region wrote); none by default. */
        default void delete(Connection transaction, String key) throws SQLException {
        }
    }

    private static final Pattern TYPE = Pattern.compile("[a-z0-9._-]{1,64}");

    private final String type;
    private final MergePolicy<S> policy;
    private final Codec<S> codec;
    private final Materializer<S> materializer;

    private MergedEntity(String type, MergePolicy<S> policy, Codec<S> codec, Materializer<S> materializer) {
        this.type = type;
        this.policy = policy;
        this.codec = codec;
        this.materializer = materializer;
    }

    /**
     * The entity type {@code type} ({@code [a-z0-9._-]}, at most 64), merged by {@code policy}, its state encoded by
     * {@code codec}; only in unitas's {@code unitas_merge_state} until {@link #materializedBy} says otherwise.
     */
    public static <S> MergedEntity<S> of(String type, MergePolicy<S> policy, Codec<S> codec) {
        Objects.requireNonNull(type, "type");
        if (!TYPE.matcher(type).matches()) {
            throw new IllegalArgumentException("type: '" + type + "' (expected: 1 to 64 of [a-z0-9._-])");
        }
        return new MergedEntity<>(type, Objects.requireNonNull(policy, "policy"),
                                  Objects.requireNonNull(codec, "codec"), (tx, key, state) -> { });
    }

    /** This entity, its merged value also written into the service's table by {@code materializer}. */
    public MergedEntity<S> materializedBy(Materializer<S> materializer) {
        return new MergedEntity<>(type, policy, codec, Objects.requireNonNull(materializer, "materializer"));
    }

    /** The type name changes carry. */
    public String type() {
        return type;
    }

    /** How concurrent states merge. */
    public MergePolicy<S> policy() {
        return policy;
    }

    /** How a state is stored and shipped. */
    public Codec<S> codec() {
        return codec;
    }

    Materializer<S> materializer() {
        return materializer;
    }

    @Override
    public String toString() {
        return "MergedEntity{" + type + '}';
    }
}
