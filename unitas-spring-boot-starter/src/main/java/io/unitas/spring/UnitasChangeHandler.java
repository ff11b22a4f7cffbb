package io.unitas.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;

import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.ChangeHandler;
import io.unitas.data.outbox.CrossedChangeHandler;

/**
 * How this region writes one entity type from another region's changes, declared as a bean: the starter's applier
 * calls it in its own transaction on this region's database, the one that also moves the applied position, so the
 * entity and the position commit together and no change is written twice.
 *
 * <pre>{@code
 * @Bean
 * UnitasChangeHandler walletChanges(UnitasEntity<Wallet> wallets) {
 *     return UnitasChangeHandler.of(wallets, (tx, key, wallet) -> {
 *         try (PreparedStatement ps = tx.prepareStatement(
 *                 "INSERT INTO wallet (user_id, balance, version) VALUES (?, ?, ?) ON CONFLICT (user_id)"
 *                 + " DO UPDATE SET balance = EXCLUDED.balance, version = EXCLUDED.version")) {
 *             ps.setString(1, key);
 *             ps.setLong(2, wallet.balance());
 *             ps.setLong(3, wallet.version());
 *             ps.executeUpdate();
 *         }
 *     });
 * }
 * }</pre>
 */
public final class UnitasChangeHandler {

    private final String entityType;
    private final ChangeHandler handler;
    private final CrossedChangeHandler reconciler; // null: a crossed change stops its unit's stream

    private UnitasChangeHandler(String entityType, ChangeHandler handler, CrossedChangeHandler reconciler) {
        this.entityType = UnitasEntity.checkedType(entityType);
        this.handler = Objects.requireNonNull(handler, "handler");
        this.reconciler = reconciler;
    }

    private UnitasChangeHandler(String entityType, ChangeHandler handler) {
        this(entityType, handler, null);
    }

    /** Writes changes of {@code entityType} with {@code handler}, which decodes the payload itself. */
    public static UnitasChangeHandler of(String entityType, ChangeHandler handler) {
        return new UnitasChangeHandler(entityType, handler);
    }

    /**
     * Writes changes of {@code entity}'s type with {@code writer}, the payload decoded by the entity's codec. A payload
     * this region's codec cannot decode (the regions run different codecs) stops the unit's stream with a reason
     * naming the entity type and the change, shown by the replication health component.
     */
    public static <V> UnitasChangeHandler of(UnitasEntity<V> entity, EntityWriter<V> writer) {
        Objects.requireNonNull(writer, "writer");
        return new UnitasChangeHandler(entity.type(), (tx, change) -> writer.write(tx, change.key(),
                                                                                 decoded(entity, change)));
    }

    private static <V> V decoded(UnitasEntity<V> entity, ChangeEnvelope change) {
        try {
            return entity.decode(change.payload());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("entity '" + entity.type() + "' " + change.key() + " of change "
                    + change.id() + ": " + change.payload().length + " bytes this region's codec cannot decode"
                    + " (expected: the same codec in every region): " + e, e);
        }
    }

    /**
     * This handler, with what this region does as a unit's new home with a change of this type that the unit's old
     * home acknowledged but had not shipped when the unit moved here (a failover): instead of writing it over this
     * region's data, {@code reconciler} decides it in the applier's transaction, for instance by adding a deposit that
     * is not here yet and refunding one that was charged here again. Without one, such a change stops its unit's
     * stream from the old home, with a reason in the replication health component, and is never written.
     */
    public UnitasChangeHandler reconciledBy(CrossedChangeHandler reconciler) {
        return new UnitasChangeHandler(entityType, handler, Objects.requireNonNull(reconciler, "reconciler"));
    }

    /** The entity type whose changes it writes. */
    public String entityType() {
        return entityType;
    }

    /** The data layer's handler. */
    ChangeHandler handler() {
        return handler;
    }

    /** The reconciler of crossed changes, or null. */
    CrossedChangeHandler reconciler() {
        return reconciler;
    }

    /**
     * Both handlers of this type, each also calling {@code after} once it has written (the listeners of the
     * replicated entities).
     */
    UnitasChangeHandler andThen(ChangeHandler after) {
        ChangeHandler written = (tx, change) -> {
            handler.apply(tx, change);
            after.apply(tx, change);
        };
        CrossedChangeHandler decided = reconciler == null ? null : (tx, change, move) -> {
            reconciler.reconcile(tx, change, move);
            after.apply(tx, change);
        };
        return new UnitasChangeHandler(entityType, written, decided);
    }

    @Override
    public String toString() {
        return "UnitasChangeHandler{" + entityType + '}';
    }

    /**
     * Writes one decoded entity with the applier's transaction.
     *
     * @param <V> the entity
     */
    @FunctionalInterface
    public interface EntityWriter<V> {

        /**
         * Writes {@code value}, the entity of key {@code key}, with {@code transaction}. A {@link SQLException} the
         * database raises for the statement stops the unit's stream with its reason; a read-only or unreachable
         * database is retried later.
         */
        void write(Connection transaction, String key, V value) throws SQLException;
    }

    /** The handlers by entity type, or one line per type declared twice. */
    static java.util.Map<String, ChangeHandler> byType(List<UnitasChangeHandler> handlers, List<String> problems) {
        java.util.Map<String, ChangeHandler> byType = new java.util.LinkedHashMap<>();
        for (UnitasChangeHandler h : handlers) {
            if (byType.putIfAbsent(h.entityType, h.handler) != null) {
                problems.add("UnitasChangeHandler '" + h.entityType + "': declared twice (expected: one bean per"
                             + " entity type)");
            }
        }
        return byType;
    }

    /**
     * The reconcilers of crossed changes by entity type ({@link #reconciledBy}); a type declared without one refuses
     * such a change with a reason saying how to declare one.
     */
    static CrossedChangeHandler reconcilers(List<UnitasChangeHandler> handlers) {
        java.util.Map<String, CrossedChangeHandler> byType = new java.util.LinkedHashMap<>();
        for (UnitasChangeHandler h : handlers) {
            byType.putIfAbsent(h.entityType, h.reconciler != null ? h.reconciler : (tx, change, move) -> {
                throw new IllegalStateException(change.origin() + " acknowledged it before unit " + move.unit()
                        + " moved to " + move.to() + ", and had not shipped it; it is not written over " + move.to()
                        + "'s data (expected: a reconciler, UnitasChangeHandler.of(...).reconciledBy(...), for"
                        + " entity type '" + h.entityType + "')");
            });
        }
        return CrossedChangeHandler.byType(byType);
    }
}
