package io.unitas.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;

import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.ChangeHandler;

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

    private UnitasChangeHandler(String entityType, ChangeHandler handler) {
        this.entityType = UnitasEntity.checkedType(entityType);
        this.handler = Objects.requireNonNull(handler, "handler");
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

    /** The entity type whose changes it writes. */
    public String entityType() {
        return entityType;
    }

    /** The data layer's handler. */
    ChangeHandler handler() {
        return handler;
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
}
