package io.unitas.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;

import javax.sql.DataSource;

import io.unitas.data.Home;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.Outbox;
import io.unitas.data.outbox.OutboxWrite;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * This region's outbox, joined to the service's own Spring transaction: call it inside {@code @Transactional} (or a
 * {@code TransactionTemplate}) after the write, and the change commits with the write or vanishes with its rollback.
 * It writes on the connection the transaction holds, so it works with {@code JdbcTemplate} and with JPA (the
 * persistence context is flushed first, so the entity's row lock is taken before the change's position is). The
 * starter ships what commits to the other regions ({@code unitas.replication.*}); their {@link UnitasChangeHandler}
 * beans write it there.
 *
 * <pre>{@code
 * @Transactional
 * public Wallet deposit(String userId, long amount) {
 *     Wallet wallet = wallets.add(userId, amount);           // the service's own write, first
 *     outbox.append(walletEntity, userId, wallet);           // its change, in the same transaction
 *     return wallet;
 * }
 * }</pre>
 */
public final class UnitasOutbox {

    private static final boolean JPA = ClassUtils.isPresent("org.springframework.orm.jpa.EntityManagerHolder",
                                                            UnitasOutbox.class.getClassLoader())
                                       && ClassUtils.isPresent("jakarta.persistence.EntityManager",
                                                               UnitasOutbox.class.getClassLoader());

    private final Outbox outbox;
    private final DataSource dataSource;
    private final String dataSourceName;
    private final UnitasRoutingState state;
    private final SQLExceptionSubclassTranslator translator = new SQLExceptionSubclassTranslator();

    private final java.util.function.Supplier<List<UnitasChangeListener>> listeners;

    UnitasOutbox(Outbox outbox, DataSource dataSource, String dataSourceName, UnitasRoutingState state) {
        this(outbox, dataSource, dataSourceName, state, List::of);
    }

    UnitasOutbox(Outbox outbox, DataSource dataSource, String dataSourceName, UnitasRoutingState state,
                 java.util.function.Supplier<List<UnitasChangeListener>> listeners) {
        this.listeners = Objects.requireNonNull(listeners, "listeners");
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.dataSourceName = dataSourceName;
        this.state = Objects.requireNonNull(state, "state");
    }

    /**
     * Appends {@code value}, the entity of key {@code key} (a routing key's value, a user id, whose unit the unit
     * rules in force give), encoded by {@code entity}'s codec, in the current transaction.
     *
     * @throws IllegalStateException    outside a transaction of this region's DataSource
     * @throws IllegalArgumentException when the unit rules give {@code key} no unit
     */
    public <V> ChangeEnvelope append(UnitasEntity<V> entity, String key, V value) {
        return append(key, entity.type(), key, entity.encode(value));
    }

    /**
     * Appends a change of entity {@code entityKey} of type {@code entityType}, owned by {@code owner} (a routing key's
     * value, a user id: the change belongs to its unit and travels in that unit's order), in the current transaction.
     *
     * @throws IllegalStateException    outside a transaction of this region's DataSource
     * @throws IllegalArgumentException when the unit rules give {@code owner} no unit
     */
    public ChangeEnvelope append(String owner, String entityType, String entityKey, byte[] payload) {
        return appendToUnit(unitOf(owner), entityType, entityKey, payload);
    }

    /** As {@link #append(String, String, String, byte[])}, for a change of {@code unit} named directly. */
    public ChangeEnvelope appendToUnit(String unit, String entityType, String entityKey, byte[] payload) {
        Connection tx = transaction("append");
        try {
            ChangeEnvelope change = outbox.append(tx, unit, entityType, entityKey, payload);
            afterCommit(entityType, entityKey, payload);
            return change;
        } catch (SQLException e) {
            throw translator.translate("unitas outbox append", null, e);
        } finally {
            DataSourceUtils.releaseConnection(tx, dataSource);
        }
    }

    /**
     * Runs the service's write {@code sql} (one {@code INSERT}, {@code UPDATE} or {@code DELETE} with a {@code ?} per
     * parameter, no {@code RETURNING}) and appends its change in the current transaction; on PostgreSQL both are one
     * statement, one round trip ({@link Outbox#writeAndAppend}). Nothing is appended when it wrote no row.
     *
     * @throws IllegalStateException    outside a transaction of this region's DataSource
     * @throws IllegalArgumentException when the unit rules give {@code owner} no unit, or {@code sql} is not one write
     */
    public OutboxWrite writeAndAppend(String sql, List<?> parameters, String owner, String entityType,
                                      String entityKey, byte[] payload) {
        String unit = unitOf(owner);
        Connection tx = transaction("writeAndAppend");
        try {
            OutboxWrite written = outbox.writeAndAppend(tx, sql, parameters, unit, entityType, entityKey, payload);
            if (written.change().isPresent()) {
                afterCommit(entityType, entityKey, payload);
            }
            return written;
        } catch (SQLException e) {
            throw translator.translate("unitas outbox writeAndAppend", sql, e);
        } finally {
            DataSourceUtils.releaseConnection(tx, dataSource);
        }
    }

    // Listeners (the cache's invalidations) hear of a local change once it is committed, never of a rolled-back one.
    private void afterCommit(String entityType, String key, byte[] payload) {
        List<UnitasChangeListener> all = listeners.get();
        if (all.isEmpty()) {
            return;
        }
        org.springframework.transaction.support.TransactionSynchronizationManager.registerSynchronization(
                new org.springframework.transaction.support.TransactionSynchronization() {
                    @Override
                    public void afterCommit() {
                        all.forEach(l -> l.changed(entityType, key, payload));
                    }
                });
    }

    /** The data layer's outbox under it: inspection, and services that manage their connections themselves. */
    public Outbox outbox() {
        return outbox;
    }

    /** The unit of {@code owner} by the unit rules in force. */
    public String unitOf(String owner) {
        Home home = IdempotencyConfiguration.home(state, owner);
        if (!home.found()) {
            throw new IllegalArgumentException("outbox: owner '" + owner + "': " + home.problem()
                                               + " (expected: a key of the unit rules)");
        }
        return home.unit();
    }

    /** The connection the current transaction holds of this region's DataSource, JPA's pending writes flushed. */
    private Connection transaction(String what) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("UnitasOutbox." + what + ": no transaction (expected: a call inside"
                                            + " @Transactional or a TransactionTemplate, with the write the change"
                                            + " belongs to)");
        }
        if (JPA) {
            JpaFlush.flushBound();
        }
        if (!TransactionSynchronizationManager.hasResource(dataSource)) {
            throw new IllegalStateException("UnitasOutbox." + what + ": the transaction holds no connection of "
                                            + dataSourceName + " (expected: a transaction of the DataSource"
                                            + " unitas.replication.data-source names)");
        }
        return DataSourceUtils.getConnection(dataSource);
    }

    @Override
    public String toString() {
        return "UnitasOutbox{" + outbox.origin() + ", " + dataSourceName + '}';
    }
}
