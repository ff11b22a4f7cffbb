package io.unitas.data.merge;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeHandler;
import io.unitas.data.outbox.Outbox;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * The merged entities of one region's database: their replicated states in {@code unitas_merge_state}, merged on
 * arrival by each entity's declared policy instead of overwritten, and what a policy could not merge kept as
 * siblings in {@code unitas_siblings}, listed, metered and resolved on record — never dropped.
 *
 * <p>A service writes a merged entity with {@link #write} (the state updated under its row's lock and appended to
 * the outbox in the service's transaction: the change carries the whole state, so a receiver merges it whatever
 * order changes arrive in), and gives {@link #handlers()} to its {@link ChangeApplier} beside its own handlers:
 * <pre>{@code
 * MergeStore merged = MergeStore.jdbc(region, dataSource, List.of(likes), clock, registry);
 * Map<String, ChangeHandler> handlers = new HashMap<>(myHandlers);
 * handlers.putAll(merged.handlers());
 * ChangeApplier applier = ChangeApplier.jdbc(region, dataSource, handlers, clock, registry);
 *
 * try (Connection tx = dataSource.getConnection()) {
 *     tx.setAutoCommit(false);
 *     merged.write(tx, outbox, likes, "u-1", "post-7", s -> s.orElse(PnCounter.zero()).add(region.id(), 1));
 *     tx.commit();
 * }
 * }</pre>
 * It exports {@code unitas.data.merge.siblings.open{type}} (entities in conflict now, read from the table) to the
 * registry.
 */
public interface MergeStore {

    /**
     * The store in {@code dataSource} (PostgreSQL or H2), after migrating unitas's tables, for {@code entities}
     * (their type names distinct), writing as {@code region} (the replica id of its writes).
     */
    static MergeStore jdbc(Region region, DataSource dataSource, List<MergedEntity<?>> entities, Clock clock,
                           MeterRegistry registry) {
        return new JdbcMergeStore(region, dataSource, entities, clock, registry);
    }

    /** The region this store writes as. */
    Region region();

    /** The declared entities by type name. */
    Map<String, MergedEntity<?>> entities();

    /** A change handler per declared entity type, merging the state a change carries into the stored one. */
    Map<String, ChangeHandler> handlers();

    /**
     * Writes {@code key} of {@code unit} in {@code transaction} (the caller's, auto-commit off): the stored state
     * (empty when none) locked, {@code update}d, stored, materialized, and appended to {@code outbox}. Returns the new
     * state.
     */
    <S> S write(Connection transaction, Outbox outbox, MergedEntity<S> entity, String unit, String key,
                Function<Optional<S>, S> update) throws SQLException;

    /**
     * The stored state of {@code key}.
     *
     * @throws IllegalStateException when the database cannot be read
     */
    <S> Optional<S> read(MergedEntity<S> entity, String key);

    /**
     * Every entity in conflict now, oldest first.
     *
     * @throws IllegalStateException when the database cannot be read
     */
    List<OpenSiblings> openSiblings();

    /**
     * Resolves the open siblings of {@code key} on record: {@code resolution} turns the stored state into one that
     * has seen every sibling and is no longer a conflict ({@code Siblings.resolve(region, chosen)}); it is stored,
     * appended to {@code outbox} (so it replaces the siblings in every region) and recorded with {@code who} and
     * {@code reason}, in one transaction.
     *
     * @throws IllegalArgumentException when {@code key} has no open siblings, or the resolution has not seen every
     *                                  sibling or is still a conflict (nothing written)
     * @throws IllegalStateException    when the database cannot be written
     */
    <S> S resolve(Outbox outbox, MergedEntity<S> entity, String key, UnaryOperator<S> resolution, String who,
                  String reason);

    /**
     * The resolutions of {@code type}/{@code key} on record, oldest first.
     *
     * @throws IllegalStateException when the database cannot be read
     */
    List<SiblingsResolution> resolutions(String type, String key);
}
