package io.unitas.playground.store;

import io.unitas.core.Region;
import io.unitas.data.reconcile.Compensation;
import io.unitas.data.reconcile.Conflict;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * {@link RegionalStore} in plain, portable SQL (H2 and PostgreSQL alike): one table per entity, a change log
 * table and a table of applied sequences per origin. Writes are serialized by one lock, so the change log's
 * sequence has no gaps and commits in order; this store expects to be the only writer of its tables.
 */
final class JdbcRegionalStore implements RegionalStore {

    private static final AtomicLong EMBEDDED_DATABASES = new AtomicLong();

    private static final List<String> SCHEMA = List.of(
            "CREATE TABLE IF NOT EXISTS shop_accounts (user_id VARCHAR(200) PRIMARY KEY,"
            + " unit_id VARCHAR(200) NOT NULL, home_region VARCHAR(63) NOT NULL, display_name VARCHAR(400) NOT NULL,"
            + " registered_at BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS shop_sessions (token VARCHAR(200) PRIMARY KEY,"
            + " user_id VARCHAR(200) NOT NULL, expires_at BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS shop_idempotency (idem_key VARCHAR(300) PRIMARY KEY,"
            + " user_id VARCHAR(200) NOT NULL, payload_hash VARCHAR(200) NOT NULL, response_status INTEGER,"
            + " response_body VARCHAR, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS shop_orders (order_id VARCHAR(200) PRIMARY KEY,"
            + " user_id VARCHAR(200) NOT NULL, idem_key VARCHAR(300) NOT NULL, payload VARCHAR NOT NULL,"
            + " created_at BIGINT NOT NULL)",
            "CREATE INDEX IF NOT EXISTS unitas_orders_by_user ON shop_orders (user_id, created_at)",
            "CREATE TABLE IF NOT EXISTS shop_carts (user_id VARCHAR(200) PRIMARY KEY, state VARCHAR NOT NULL)",
            "CREATE TABLE IF NOT EXISTS shop_changes (seq BIGINT PRIMARY KEY, kind VARCHAR(20) NOT NULL,"
            + " entity_key VARCHAR(300) NOT NULL, payload VARCHAR NOT NULL, written_at BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS shop_applied (origin_replica VARCHAR(100) PRIMARY KEY, seq BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS shop_compensations (order_id VARCHAR(200) PRIMARY KEY,"
            + " kept_order_id VARCHAR(200) NOT NULL, idem_key VARCHAR(300) NOT NULL, user_id VARCHAR(200) NOT NULL,"
            + " reason VARCHAR NOT NULL, compensated_at BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS shop_conflicts (change_id VARCHAR(200) PRIMARY KEY, unit_id VARCHAR(200) NOT NULL,"
            + " kind VARCHAR(20) NOT NULL, entity_key VARCHAR(300) NOT NULL, origin VARCHAR(63) NOT NULL,"
            + " home VARCHAR(63) NOT NULL, detail VARCHAR NOT NULL, detected_at BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS shop_meta (name VARCHAR(63) PRIMARY KEY, text_value VARCHAR(200) NOT NULL)");

    /** SQLSTATE of a write refused by a read-only transaction or server (PostgreSQL; SQL standard class 25). */
    private static final String READ_ONLY_SQL_TRANSACTION = "25006";
    /** SQLSTATE H2 uses for a write to a read-only database. */
    private static final String H2_DATABASE_IS_READ_ONLY = "90097";

    private final Region region;
    private final DataSource dataSource;
    private final Clock clock;
    private final Runnable onClose;
    private final String replicaId;
    private final Object writeLock = new Object();
    private volatile StoreMode mode = StoreMode.READ_WRITE;
    private long lastSeq; // guarded by writeLock

    JdbcRegionalStore(Region region, DataSource dataSource, Clock clock, Runnable onClose) {
        this.region = Objects.requireNonNull(region, "region");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.onClose = onClose;
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            for (String ddl : SCHEMA) {
                s.execute(ddl);
            }
            try (ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(seq), 0) FROM shop_changes")) {
                rs.next();
                lastSeq = rs.getLong(1);
            }
            replicaId = replicaId(c, region);
        } catch (SQLException e) {
            throw new IllegalStateException(region + ": cannot create the store's tables: " + e.getMessage(), e);
        }
    }

    static JdbcRegionalStore embedded(Region region, Clock clock) {
        // DB_CLOSE_DELAY=-1 keeps the in-memory database between connections until close() shuts it down; the
        // pool keeps sessions open, as opening one per call would cost more than the call.
        JdbcConnectionPool pool = JdbcConnectionPool.create(
                "jdbc:h2:mem:unitas-" + region.id() + "-" + EMBEDDED_DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1",
                "sa", "");
        return new JdbcRegionalStore(region, pool, clock, () -> {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            } catch (SQLException e) {
                // already gone: nothing left to release
            }
            pool.dispose();
        });
    }

    @Override
    public DataSource database() {
        return dataSource;
    }

    @Override
    public Region region() {
        return region;
    }

    @Override
    public String replicaId() {
        return replicaId;
    }

    @Override
    public StoreMode mode() {
        if (mode != StoreMode.READ_WRITE) {
            return mode;
        }
        // What the database itself accepts (a server made read-only, one that stopped): a read-only database refuses
        // even a write that changes no row.
        StoreResult<Integer> probe = transact(c -> StoreResult.ok(
                update(c, "UPDATE shop_meta SET text_value = text_value WHERE name IS NULL")));
        return switch (probe.status()) {
            case OK -> StoreMode.READ_WRITE;
            case READ_ONLY -> StoreMode.READ_ONLY;
            default -> StoreMode.UNAVAILABLE;
        };
    }

    @Override
    public void mode(StoreMode mode) {
        this.mode = Objects.requireNonNull(mode, "mode");
    }

    @Override
    public StoreResult<Account> account(String userId) {
        return read(c -> one(c, "SELECT user_id, unit_id, home_region, display_name, registered_at"
                                + " FROM shop_accounts WHERE user_id = ?", "account", userId,
                             rs -> new Account(rs.getString(1), rs.getString(2), Region.of(rs.getString(3)),
                                               rs.getString(4), Instant.ofEpochMilli(rs.getLong(5)))));
    }

    @Override
    public StoreResult<Account> putAccount(Account account) {
        return write(c -> {
            upsertAccount(c, account);
            log(c, Change.Kind.ACCOUNT, account.userId(), ChangeCodec.account(account));
            return StoreResult.ok(account);
        });
    }

    @Override
    public StoreResult<Session> session(String token) {
        StoreResult<Session> found = read(c -> one(c, "SELECT token, user_id, expires_at FROM shop_sessions"
                                                      + " WHERE token = ?", "session", token,
                                                   rs -> new Session(rs.getString(1), rs.getString(2),
                                                                     Instant.ofEpochMilli(rs.getLong(3)))));
        return found.isOk() && !found.value().isValidAt(clock.instant())
               ? StoreResult.notFound(region, "session", token) : found;
    }

    @Override
    public StoreResult<Session> putSession(Session session) {
        return write(c -> {
            upsertSession(c, session);
            log(c, Change.Kind.SESSION, session.token(), ChangeCodec.session(session));
            return StoreResult.ok(session);
        });
    }

    @Override
    public StoreResult<IdempotencyRecord> idempotencyRecord(String key) {
        StoreResult<IdempotencyRecord> found = read(c -> idempotency(c, key));
        return found.isOk() && found.value().isExpiredAt(clock.instant())
               ? StoreResult.notFound(region, "idempotency record", key) : found;
    }

    @Override
    public StoreResult<IdempotencyRecord> claim(IdempotencyRecord record) {
        if (!record.inFlight()) {
            throw new IllegalArgumentException("record of " + record.key() + ": completed (expected: in flight)");
        }
        return write(c -> {
            StoreResult<IdempotencyRecord> existing = idempotency(c, record.key());
            if (existing.isOk() && !existing.value().isExpiredAt(clock.instant())) {
                return StoreResult.conflict(region, "idempotency key", record.key(), existing.value());
            }
            upsertIdempotency(c, record);
            log(c, Change.Kind.IDEMPOTENCY, record.key(), ChangeCodec.idempotency(record));
            return StoreResult.ok(record);
        });
    }

    @Override
    public StoreResult<IdempotencyRecord> complete(String key, StoredResponse response) {
        return write(c -> {
            StoreResult<IdempotencyRecord> existing = idempotency(c, key);
            if (!existing.isOk()) {
                return existing;
            }
            IdempotencyRecord completed = existing.value().completed(response);
            upsertIdempotency(c, completed);
            log(c, Change.Kind.IDEMPOTENCY, key, ChangeCodec.idempotency(completed));
            return StoreResult.ok(completed);
        });
    }

    @Override
    public StoreResult<String> release(String key) {
        return write(c -> {
            update(c, "DELETE FROM shop_idempotency WHERE idem_key = ?", key);
            log(c, Change.Kind.IDEMPOTENCY, key, "");
            return StoreResult.ok(key);
        });
    }

    @Override
    public StoreResult<Order> putOrder(Order order) {
        return write(c -> {
            StoreResult<Order> existing = order(c, order.orderId());
            if (existing.isOk()) {
                return StoreResult.conflict(region, "order", order.orderId(), existing.value());
            }
            insertOrder(c, order);
            log(c, Change.Kind.ORDER, order.orderId(), ChangeCodec.order(order));
            return StoreResult.ok(order);
        });
    }

    @Override
    public StoreResult<List<Order>> orders(String userId) {
        return read(c -> {
            try (PreparedStatement ps = prepare(c, "SELECT order_id, user_id, idem_key, payload, created_at"
                                                   + " FROM shop_orders WHERE user_id = ?"
                                                   + " ORDER BY created_at, order_id", userId);
                 ResultSet rs = ps.executeQuery()) {
                List<Order> orders = new ArrayList<>();
                while (rs.next()) {
                    orders.add(orderOf(rs));
                }
                return StoreResult.ok(List.copyOf(orders));
            }
        });
    }

    @Override
    public StoreResult<Cart> cart(String userId) {
        return read(c -> StoreResult.ok(storedCart(c, userId)));
    }

    @Override
    public StoreResult<Cart> updateCart(String userId, CartEdit edit) {
        return write(c -> {
            Cart updated = Objects.requireNonNull(edit.apply(storedCart(c, userId), replicaId), "edited cart");
            String state = ChangeCodec.cart(updated);
            upsertCart(c, userId, state);
            log(c, Change.Kind.CART, userId, state);
            return StoreResult.ok(updated);
        });
    }

    @Override
    public StoreResult<List<Change>> changesSince(long afterSeq, int limit) {
        return read(c -> {
            try (PreparedStatement ps = prepare(c, "SELECT seq, kind, entity_key, payload, written_at"
                                                   + " FROM shop_changes WHERE seq > ? ORDER BY seq LIMIT ?",
                                                afterSeq, limit);
                 ResultSet rs = ps.executeQuery()) {
                List<Change> changes = new ArrayList<>();
                while (rs.next()) {
                    changes.add(new Change(region, replicaId, rs.getLong(1), Change.Kind.valueOf(rs.getString(2)),
                                           rs.getString(3), rs.getString(4), Instant.ofEpochMilli(rs.getLong(5))));
                }
                return StoreResult.ok(List.copyOf(changes));
            }
        });
    }

    @Override
    public StoreResult<Boolean> apply(Change change) {
        if (change.originReplica().equals(replicaId)) {
            throw new IllegalArgumentException("change " + change.id() + ": from this store itself"
                                               + " (expected: another store's)");
        }
        return transact(c -> {
            if (!claimApplied(c, change)) {
                return StoreResult.ok(false);
            }
            applyEntity(c, change);
            return StoreResult.ok(true);
        });
    }

    @Override
    public StoreResult<Boolean> adopt(Change change) {
        return write(c -> {
            if (!claimApplied(c, change)) {
                return StoreResult.ok(false);
            }
            applyEntity(c, change);
            // A cart ships as the merged state; everything else as the old home wrote it.
            String payload = change.kind() == Change.Kind.CART ? ChangeCodec.cart(storedCart(c, change.key()))
                                                               : change.payload();
            log(c, change.kind(), change.key(), payload);
            return StoreResult.ok(true);
        });
    }

    @Override
    public StoreResult<Boolean> setAside(Change change, Conflict conflict) {
        return transact(c -> {
            if (!claimApplied(c, change)) {
                return StoreResult.ok(false);
            }
            if (conflict != null) {
                update(c, "DELETE FROM shop_conflicts WHERE change_id = ?", conflict.changeId());
                update(c, "INSERT INTO shop_conflicts (change_id, unit_id, kind, entity_key, origin, home, detail,"
                          + " detected_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", conflict.changeId(), conflict.unit(),
                       conflict.kind(), conflict.key(), conflict.origin().id(), conflict.home().id(),
                       conflict.detail(), conflict.detectedAt().toEpochMilli());
            }
            return StoreResult.ok(true);
        });
    }

    @Override
    public StoreResult<Boolean> compensate(Change change, Compensation compensation) {
        return write(c -> {
            if (!claimApplied(c, change)) {
                return StoreResult.ok(false);
            }
            Order order = ChangeCodec.order(change.payload());
            if (!order(c, order.orderId()).isOk()) {
                insertOrder(c, order);
                log(c, Change.Kind.ORDER, order.orderId(), change.payload());
            }
            if (insertCompensation(c, compensation)) {
                log(c, Change.Kind.COMPENSATION, compensation.duplicateId(), ChangeCodec.compensation(compensation));
            }
            return StoreResult.ok(true);
        });
    }

    @Override
    public StoreResult<List<Compensation>> compensations(String userId) {
        return read(c -> {
            try (PreparedStatement ps = prepare(c, "SELECT order_id, kept_order_id, idem_key, user_id, reason,"
                                                   + " compensated_at FROM shop_compensations WHERE user_id = ?"
                                                   + " ORDER BY compensated_at, order_id", userId);
                 ResultSet rs = ps.executeQuery()) {
                List<Compensation> list = new ArrayList<>();
                while (rs.next()) {
                    list.add(new Compensation(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                                              rs.getString(5), Instant.ofEpochMilli(rs.getLong(6))));
                }
                return StoreResult.ok(List.copyOf(list));
            }
        });
    }

    @Override
    public StoreResult<List<Conflict>> conflicts() {
        return read(c -> {
            try (PreparedStatement ps = prepare(c, "SELECT change_id, unit_id, kind, entity_key, origin, home, detail,"
                                                   + " detected_at FROM shop_conflicts ORDER BY detected_at, change_id");
                 ResultSet rs = ps.executeQuery()) {
                List<Conflict> list = new ArrayList<>();
                while (rs.next()) {
                    list.add(new Conflict(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                                          Region.of(rs.getString(5)), Region.of(rs.getString(6)), rs.getString(7),
                                          Instant.ofEpochMilli(rs.getLong(8))));
                }
                return StoreResult.ok(List.copyOf(list));
            }
        });
    }

    /**
     * Counts {@code change} applied, in order: false when it already was; throws when it is out of order, as
     * {@link #apply} does.
     */
    private boolean claimApplied(Connection c, Change change) throws SQLException {
        if (change.originReplica().equals(replicaId)) {
            throw new IllegalArgumentException("change " + change.id() + ": from this store itself"
                                               + " (expected: another store's)");
        }
        long applied = appliedSeq(c, change.originReplica());
        if (change.seq() <= applied) {
            return false;
        }
        if (change.seq() != applied + 1) {
            throw new IllegalArgumentException("change " + change.id() + ": out of order (expected: "
                                               + change.originReplica() + "#" + (applied + 1) + ")");
        }
        if (update(c, "UPDATE shop_applied SET seq = ? WHERE origin_replica = ?", change.seq(),
                   change.originReplica()) == 0) {
            update(c, "INSERT INTO shop_applied (origin_replica, seq) VALUES (?, ?)", change.originReplica(),
                   change.seq());
        }
        return true;
    }

    /** Stores a compensation unless its order has one already; whether it did. */
    private static boolean insertCompensation(Connection c, Compensation comp) throws SQLException {
        try (PreparedStatement ps = prepare(c, "SELECT 1 FROM shop_compensations WHERE order_id = ?",
                                            comp.duplicateId());
             ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
                return false;
            }
        }
        update(c, "INSERT INTO shop_compensations (order_id, kept_order_id, idem_key, user_id, reason,"
                  + " compensated_at) VALUES (?, ?, ?, ?, ?, ?)", comp.duplicateId(), comp.keptId(), comp.key(),
               comp.owner(), comp.reason(), comp.at().toEpochMilli());
        return true;
    }

    @Override
    public StoreResult<Long> appliedSeq(String originReplica) {
        return read(c -> StoreResult.ok(appliedSeq(c, originReplica)));
    }

    @Override
    public void close() {
        onClose.run();
    }

    @Override
    public String toString() {
        return "RegionalStore{" + region + ", " + mode + '}';
    }

    /**
     * The store's replica id, {@code <region>.<incarnation>}, minted once per database: a region whose data is wiped
     * and rebuilt writes under a new id, so its counters restarting at 1 cannot collide with dots the other regions
     * already saw.
     */
    private static String replicaId(Connection c, Region region) throws SQLException {
        try (PreparedStatement ps = prepare(c, "SELECT text_value FROM shop_meta WHERE name = ?", "replica_id");
             ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
                return rs.getString(1);
            }
        }
        String minted = region.id() + "." + UUID.randomUUID().toString().substring(0, 8);
        update(c, "INSERT INTO shop_meta (name, text_value) VALUES (?, ?)", "replica_id", minted);
        return minted;
    }

    private void applyEntity(Connection c, Change change) throws SQLException {
        switch (change.kind()) {
            case ACCOUNT -> upsertAccount(c, ChangeCodec.account(change.payload()));
            case SESSION -> upsertSession(c, ChangeCodec.session(change.payload()));
            case IDEMPOTENCY -> {
                if (change.payload().isEmpty()) {
                    update(c, "DELETE FROM shop_idempotency WHERE idem_key = ?", change.key());
                } else {
                    upsertIdempotency(c, ChangeCodec.idempotency(change.payload()));
                }
            }
            case ORDER -> {
                Order order = ChangeCodec.order(change.payload());
                if (!order(c, order.orderId()).isOk()) {
                    insertOrder(c, order);
                }
            }
            case CART -> upsertCart(c, change.key(), ChangeCodec.cart(
                    storedCart(c, change.key()).merge(ChangeCodec.cart(change.payload()))));
            case COMPENSATION -> insertCompensation(c, ChangeCodec.compensation(change.payload()));
        }
    }

    private void log(Connection c, Change.Kind kind, String key, String payload) throws SQLException {
        update(c, "INSERT INTO shop_changes (seq, kind, entity_key, payload, written_at) VALUES (?, ?, ?, ?, ?)",
               lastSeq + 1, kind.name(), key, payload, clock.millis());
        lastSeq++;
    }

    private static void upsertAccount(Connection c, Account a) throws SQLException {
        upsert(c, "UPDATE shop_accounts SET unit_id = ?, home_region = ?, display_name = ?, registered_at = ?"
                  + " WHERE user_id = ?",
               "INSERT INTO shop_accounts (unit_id, home_region, display_name, registered_at, user_id)"
               + " VALUES (?, ?, ?, ?, ?)",
               a.unit(), a.home().id(), a.name(), a.registeredAt().toEpochMilli(), a.userId());
    }

    private static void upsertSession(Connection c, Session s) throws SQLException {
        upsert(c, "UPDATE shop_sessions SET user_id = ?, expires_at = ? WHERE token = ?",
               "INSERT INTO shop_sessions (user_id, expires_at, token) VALUES (?, ?, ?)",
               s.userId(), s.expiresAt().toEpochMilli(), s.token());
    }

    private static void upsertIdempotency(Connection c, IdempotencyRecord r) throws SQLException {
        Object status = r.inFlight() ? new TypedNull(Types.INTEGER) : r.response().status();
        Object body = r.inFlight() ? new TypedNull(Types.VARCHAR) : r.response().body();
        upsert(c, "UPDATE shop_idempotency SET user_id = ?, payload_hash = ?, response_status = ?,"
                  + " response_body = ?, created_at = ?, expires_at = ? WHERE idem_key = ?",
               "INSERT INTO shop_idempotency (user_id, payload_hash, response_status, response_body, created_at,"
               + " expires_at, idem_key) VALUES (?, ?, ?, ?, ?, ?, ?)",
               r.userId(), r.payloadHash(), status, body, r.createdAt().toEpochMilli(), r.expiresAt().toEpochMilli(),
               r.key());
    }

    private static void upsertCart(Connection c, String userId, String state) throws SQLException {
        upsert(c, "UPDATE shop_carts SET state = ? WHERE user_id = ?",
               "INSERT INTO shop_carts (state, user_id) VALUES (?, ?)", state, userId);
    }

    private static void insertOrder(Connection c, Order o) throws SQLException {
        update(c, "INSERT INTO shop_orders (order_id, user_id, idem_key, payload, created_at) VALUES (?, ?, ?, ?, ?)",
               o.orderId(), o.userId(), o.idempotencyKey(), o.payload(), o.createdAt().toEpochMilli());
    }

    private StoreResult<IdempotencyRecord> idempotency(Connection c, String key) throws SQLException {
        return one(c, "SELECT idem_key, user_id, payload_hash, response_status, response_body, created_at, expires_at"
                      + " FROM shop_idempotency WHERE idem_key = ?", "idempotency record", key,
                   rs -> {
                       int status = rs.getInt(4);
                       StoredResponse response = rs.wasNull() ? null : new StoredResponse(status, rs.getString(5));
                       return new IdempotencyRecord(rs.getString(1), rs.getString(2), rs.getString(3), response,
                                                    Instant.ofEpochMilli(rs.getLong(6)),
                                                    Instant.ofEpochMilli(rs.getLong(7)));
                   });
    }

    private StoreResult<Order> order(Connection c, String orderId) throws SQLException {
        return one(c, "SELECT order_id, user_id, idem_key, payload, created_at FROM shop_orders WHERE order_id = ?",
                   "order", orderId, JdbcRegionalStore::orderOf);
    }

    private static Order orderOf(ResultSet rs) throws SQLException {
        return new Order(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                         Instant.ofEpochMilli(rs.getLong(5)));
    }

    private Cart storedCart(Connection c, String userId) throws SQLException {
        StoreResult<String> state = one(c, "SELECT state FROM shop_carts WHERE user_id = ?", "cart", userId,
                                        rs -> rs.getString(1));
        return state.isOk() ? ChangeCodec.cart(state.value()) : Cart.empty();
    }

    private static long appliedSeq(Connection c, String originReplica) throws SQLException {
        try (PreparedStatement ps = prepare(c, "SELECT seq FROM shop_applied WHERE origin_replica = ?",
                                            originReplica);
             ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    @Override
    public StoreResult<Integer> trim(long shippedThroughSeq) {
        long now = clock.millis();
        return transact(c -> StoreResult.ok(
                update(c, "DELETE FROM shop_changes WHERE seq <= ? AND seq < ?", shippedThroughSeq, lastSeq)
                + update(c, "DELETE FROM shop_sessions WHERE expires_at <= ?", now)
                + update(c, "DELETE FROM shop_idempotency WHERE expires_at <= ?", now)));
    }

    /** Reads with one connection; a failing database reads as unavailable. */
    private <T> StoreResult<T> read(SqlWork<T> work) {
        if (mode == StoreMode.UNAVAILABLE) {
            return StoreResult.unavailable(region, "switched off");
        }
        try (Connection c = dataSource.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            return StoreResult.unavailable(region, e.getMessage());
        }
    }

    /** An application write: refused while read-only, else one logged transaction. */
    private <T> StoreResult<T> write(SqlWork<T> work) {
        if (mode == StoreMode.READ_ONLY) {
            return StoreResult.readOnly(region);
        }
        return transact(work);
    }

    /** One transaction under the write lock, committed only when the work succeeds. */
    private <T> StoreResult<T> transact(SqlWork<T> work) {
        if (mode == StoreMode.UNAVAILABLE) {
            return StoreResult.unavailable(region, "switched off");
        }
        synchronized (writeLock) {
            long seqBefore = lastSeq;
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                try {
                    StoreResult<T> result = work.run(c);
                    if (result.isOk()) {
                        c.commit();
                    } else {
                        c.rollback();
                        lastSeq = seqBefore;
                    }
                    return result;
                } catch (SQLException | RuntimeException e) {
                    c.rollback();
                    lastSeq = seqBefore;
                    throw e;
                }
            } catch (SQLException e) {
                lastSeq = seqBefore;
                return READ_ONLY_SQL_TRANSACTION.equals(e.getSQLState())
                       || H2_DATABASE_IS_READ_ONLY.equals(e.getSQLState())
                       ? StoreResult.readOnly(region) : StoreResult.unavailable(region, e.getMessage());
            }
        }
    }

    private <T> StoreResult<T> one(Connection c, String sql, String what, String key, RowMapper<T> mapper)
            throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, key); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? StoreResult.ok(mapper.map(rs)) : StoreResult.notFound(region, what, key);
        }
    }

    private static void upsert(Connection c, String updateSql, String insertSql, Object... params)
            throws SQLException {
        // UPDATE then INSERT, not MERGE/ON CONFLICT: the one form H2 and PostgreSQL share. Safe under the write lock.
        if (update(c, updateSql, params) == 0) {
            update(c, insertSql, params);
        }
    }

    private static int update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, params)) {
            return ps.executeUpdate();
        }
    }

    private static PreparedStatement prepare(Connection c, String sql, Object... params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        for (int i = 0; i < params.length; i++) {
            if (params[i] instanceof TypedNull n) {
                ps.setNull(i + 1, n.sqlType());
            } else {
                ps.setObject(i + 1, params[i]);
            }
        }
        return ps;
    }

    /** A SQL NULL parameter of a given {@link Types} type, which PostgreSQL needs to know. */
    private record TypedNull(int sqlType) {}

    @FunctionalInterface
    private interface SqlWork<T> {
        StoreResult<T> run(Connection c) throws SQLException;
    }

    @FunctionalInterface
    private interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }
}
