package io.unitas.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import io.unitas.core.crdt.Siblings;
import io.unitas.data.merge.MergeStore;
import io.unitas.data.merge.MergedEntity;
import io.unitas.data.merge.OpenSiblings;
import io.unitas.data.merge.SiblingsResolution;
import io.unitas.data.outbox.ChangeHandler;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The entities declared with a merge policy ({@link UnitasEntity.Builder#mergePolicy}), in this region's database:
 * written in the service's own Spring transaction (the state updated under its row's lock and its change appended to
 * the outbox with it), merged on arrival by the starter's applier instead of overwritten, and what a policy cannot
 * merge kept as siblings, listed ({@link #openSiblings()}, {@code /actuator/siblings}, the gauge
 * {@code unitas.data.merge.siblings.open}, a reason in {@code /actuator/health/unitas}) and resolved on record.
 *
 * <pre>{@code
 * @Transactional
 * public long like(String userId, String postId) {
 *     return merge.write(likes, userId, postId, s -> s.orElse(PnCounter.zero()).add(merge.region(), 1)).value();
 * }
 * }</pre>
 */
public final class UnitasMerge {

    private final Region region;
    private final DataSource dataSource;
    private final Supplier<List<UnitasEntity<?>>> declared;
    private final Supplier<UnitasOutbox> outbox;
    private final Clock clock;
    private final MeterRegistry registry;
    private final SQLExceptionSubclassTranslator translator = new SQLExceptionSubclassTranslator();
    private volatile MergeStore store;

    UnitasMerge(Region region, DataSource dataSource, Supplier<List<UnitasEntity<?>>> declared,
                Supplier<UnitasOutbox> outbox, Clock clock, MeterRegistry registry) {
        this.region = Objects.requireNonNull(region, "region");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.declared = declared;
        this.outbox = outbox;
        this.clock = clock;
        this.registry = registry;
    }

    /** This region's id: the replica id a write's state is updated under ({@code PnCounter.add(region(), 1)}). */
    public String region() {
        return region.id();
    }

    /**
     * Writes {@code key} of {@code entity} (owned by {@code owner}, a routing key's value whose unit the rules give)
     * in the current transaction: the stored state (empty when none) locked, {@code update}d, stored, materialized and
     * appended to the outbox. Returns the new state.
     *
     * @throws IllegalStateException    outside a transaction of this region's DataSource
     * @throws IllegalArgumentException when {@code entity} has no merge policy, or the rules give {@code owner} no unit
     */
    public <V> V write(UnitasEntity<V> entity, String owner, String key, Function<Optional<V>, V> update) {
        MergedEntity<V> merged = declaredAs(entity);
        UnitasOutbox out = outbox.get();
        String unit = out.unitOf(owner);
        if (!TransactionSynchronizationManager.isActualTransactionActive()
            || !TransactionSynchronizationManager.hasResource(dataSource)) {
            throw new IllegalStateException("UnitasMerge.write: no transaction of this region's DataSource (expected:"
                                            + " a call inside @Transactional or a TransactionTemplate)");
        }
        Connection tx = DataSourceUtils.getConnection(dataSource);
        try {
            return store().write(tx, out.outbox(), merged, unit, key, update);
        } catch (SQLException e) {
            throw translator.translate("unitas merge write " + entity.type() + " " + key, null, e);
        } finally {
            DataSourceUtils.releaseConnection(tx, dataSource);
        }
    }

    /** The stored state of {@code key} of the merged entity {@code type} (what {@link UnitasEntity}'s read returns). */
    @SuppressWarnings("unchecked")
    public <V> Optional<V> read(String type, String key) {
        MergedEntity<V> merged = (MergedEntity<V>) store().entities().get(type);
        if (merged == null) {
            throw new IllegalArgumentException("entity '" + type + "': no merge policy declared (expected one of "
                                               + store().entities().keySet() + ")");
        }
        return store().read(merged, key);
    }

    /** Every entity in conflict in this region now, oldest first. */
    public List<OpenSiblings> openSiblings() {
        return store().openSiblings();
    }

    /**
     * Resolves the open siblings of {@code key} on record: {@code resolution} turns the stored state into one that has
     * seen every sibling ({@code Siblings.resolve(region, chosen)}); stored, shipped to every region, and recorded with
     * {@code who} and {@code reason}.
     *
     * @throws IllegalArgumentException when {@code key} has no open siblings or the resolution is not one
     */
    public <V> V resolve(UnitasEntity<V> entity, String key, UnaryOperator<V> resolution, String who, String reason) {
        MergedEntity<V> merged = declaredAs(entity);
        return store().resolve(outbox.get().outbox(), merged, key, resolution, who, reason);
    }

    /**
     * Resolves a {@code Siblings} entity by one of its listed values ({@code choice}, 0-based in
     * {@code Siblings.values()} order): what {@code /actuator/siblings} does for an operator.
     *
     * @throws IllegalArgumentException when the type is not declared, its state is not siblings, or the index is not
     *                                  one of the listed values
     */
    @SuppressWarnings("unchecked")
    Object resolveByChoice(String type, String key, int choice, String who, String reason) {
        MergedEntity<Object> merged = (MergedEntity<Object>) store().entities().get(type);
        if (merged == null) {
            throw new IllegalArgumentException("type: '" + type + "' (expected one of " + store().entities().keySet()
                                               + ")");
        }
        return store().resolve(outbox.get().outbox(), merged, key, stored -> {
            if (!(stored instanceof Siblings<?> siblings)) {
                throw new IllegalArgumentException(type + " " + key + ": " + stored.getClass().getSimpleName()
                        + " (expected: a Siblings state to choose from; resolve it in the service with"
                        + " UnitasMerge.resolve)");
            }
            List<?> values = siblings.values();
            if (choice < 0 || choice >= values.size()) {
                throw new IllegalArgumentException("choice: " + choice + " (expected: 0 to " + (values.size() - 1)
                                                   + ", one of " + values + ")");
            }
            return ((Siblings<Object>) siblings).resolve(region.id(), values.get(choice));
        }, who, reason);
    }

    /** The resolutions of {@code type}/{@code key} on record, oldest first. */
    public List<SiblingsResolution> resolutions(String type, String key) {
        return store().resolutions(type, key);
    }

    /** The applier's handler per merged entity type. */
    Map<String, ChangeHandler> handlers() {
        return store().handlers();
    }

    /** This region's database, where the merged entities are kept. */
    DataSource dataSource() {
        return dataSource;
    }

    /** The store of the merged entities (built on first use). */
    MergeStore mergeStore() {
        return store();
    }

    /** The merged entities' type names. */
    List<String> types() {
        return List.copyOf(store().entities().keySet());
    }

    @SuppressWarnings("unchecked")
    private <V> MergedEntity<V> declaredAs(UnitasEntity<V> entity) {
        MergedEntity<?> merged = store().entities().get(entity.type());
        if (merged == null || entity.mergePolicy().isEmpty()) {
            throw new IllegalArgumentException("entity '" + entity.type() + "': no merge policy (expected:"
                                               + " UnitasEntity.builder(...).mergePolicy(...))");
        }
        return (MergedEntity<V>) merged;
    }

    // Built on first use, not with the bean: entity beans often read through a repository that itself uses this.
    private MergeStore store() {
        MergeStore s = store;
        if (s == null) {
            synchronized (this) {
                s = store;
                if (s == null) {
                    Map<String, MergedEntity<?>> byType = new LinkedHashMap<>();
                    for (UnitasEntity<?> e : declared.get()) {
                        if (e.mergePolicy().isPresent()) {
                            byType.putIfAbsent(e.type(), e.merged());
                        }
                    }
                    s = MergeStore.jdbc(region, dataSource, new ArrayList<>(byType.values()), clock, registry);
                    store = s;
                }
            }
        }
        return s;
    }

    @Override
    public String toString() {
        return "UnitasMerge{" + region + '}';
    }
}
