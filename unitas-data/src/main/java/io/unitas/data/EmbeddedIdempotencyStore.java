package io.unitas.data;

import io.unitas.core.Region;
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
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/**
 * {@link IdempotencyStore} in one portable table, {@code unitas_idempotency}. A claim is an INSERT that the primary
 * key makes atomic, or, over an expired record, a conditional UPDATE; so several processes may share the table.
 */
final class EmbeddedIdempotencyStore implements IdempotencyStore {

    private static final AtomicLong IN_MEMORY_DATABASES = new AtomicLong();
    private static final String TABLE =
            "CREATE TABLE IF NOT EXISTS unitas_idempotency (idem_key VARCHAR(300) PRIMARY KEY,"
            + " user_id VARCHAR(200) NOT NULL, payload_hash VARCHAR(200) NOT NULL, response_status INTEGER,"
            + " response_body VARCHAR, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)";
    private static final String COLUMNS =
            "idem_key, user_id, payload_hash, response_status, response_body, created_at, expires_at";
    /** SQLSTATE of a write refused by a read-only transaction or server (SQL standard class 25). */
    private static final String READ_ONLY_SQL_TRANSACTION = "25006";
    /** SQLSTATE H2 uses for a write to a read-only database. */
    private static final String H2_DATABASE_IS_READ_ONLY = "90097";
    /** SQLSTATE class 23: an integrity constraint (here the primary key) refused the row. */
    private static final String INTEGRITY_CONSTRAINT = "23";

    private final Region region;
    private final DataSource dataSource;
    private final Clock clock;

    EmbeddedIdempotencyStore(Region region, DataSource dataSource, Clock clock) {
        this.region = Objects.requireNonNull(region, "region");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.clock = Objects.requireNonNull(clock, "clock");
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(TABLE);
        } catch (SQLException e) {
            throw new IllegalStateException(region + ": cannot create table unitas_idempotency: " + e.getMessage(), e);
        }
    }

    static EmbeddedIdempotencyStore inMemory(Region region, Clock clock) {
        JdbcDataSource h2 = new JdbcDataSource();
        // DB_CLOSE_DELAY=-1 keeps the in-memory database between connections for the life of the process.
        h2.setURL("jdbc:h2:mem:unitas-idempotency-" + region.id() + "-" + IN_MEMORY_DATABASES.incrementAndGet()
                  + ";DB_CLOSE_DELAY=-1");
        return new EmbeddedIdempotencyStore(region, h2, clock);
    }

    @Override
    public StoreResult<IdempotencyRecord> idempotencyRecord(String key) {
        try (Connection c = dataSource.getConnection()) {
            StoreResult<IdempotencyRecord> found = find(c, key);
            return found.isOk() && found.value().isExpiredAt(clock.instant())
                   ? StoreResult.notFound(region, "idempotency record", key) : found;
        } catch (SQLException e) {
            return failed(e);
        }
    }

    @Override
    public StoreResult<IdempotencyRecord> claim(IdempotencyRecord record) {
        if (!record.inFlight()) {
            throw new IllegalArgumentException("record of " + record.key() + ": completed (expected: in flight)");
        }
        try (Connection c = dataSource.getConnection()) {
            try {
                update(c, "INSERT INTO unitas_idempotency (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?)",
                       record.key(), record.userId(), record.payloadHash(), new TypedNull(Types.INTEGER),
                       new TypedNull(Types.VARCHAR), record.createdAt().toEpochMilli(),
                       record.expiresAt().toEpochMilli());
                return StoreResult.ok(record);
            } catch (SQLException e) {
                if (e.getSQLState() == null || !e.getSQLState().startsWith(INTEGRITY_CONSTRAINT)) {
                    throw e;
                }
            }
            // Taken: free only if expired, and then only for the one claimant whose UPDATE still sees it expired.
            int taken = update(c, "UPDATE unitas_idempotency SET user_id = ?, payload_hash = ?, response_status = ?,"
                                  + " response_body = ?, created_at = ?, expires_at = ? WHERE idem_key = ?"
                                  + " AND expires_at <= ?",
                               record.userId(), record.payloadHash(), new TypedNull(Types.INTEGER),
                               new TypedNull(Types.VARCHAR), record.createdAt().toEpochMilli(),
                               record.expiresAt().toEpochMilli(), record.key(), clock.millis());
            if (taken == 1) {
                return StoreResult.ok(record);
            }
            StoreResult<IdempotencyRecord> existing = find(c, record.key());
            return existing.isOk()
                   ? StoreResult.conflict(region, "idempotency key", record.key(), existing.value())
                   : StoreResult.unavailable(region, "idempotency key '" + record.key()
                                                     + "' was released while being claimed; try again");
        } catch (SQLException e) {
            return failed(e);
        }
    }

    @Override
    public StoreResult<IdempotencyRecord> complete(String key, StoredResponse response) {
        Objects.requireNonNull(response, "response");
        try (Connection c = dataSource.getConnection()) {
            StoreResult<IdempotencyRecord> existing = find(c, key);
            if (!existing.isOk()) {
                return existing;
            }
            update(c, "UPDATE unitas_idempotency SET response_status = ?, response_body = ? WHERE idem_key = ?",
                   response.status(), response.body(), key);
            return StoreResult.ok(existing.value().completed(response));
        } catch (SQLException e) {
            return failed(e);
        }
    }

    @Override
    public StoreResult<String> release(String key) {
        try (Connection c = dataSource.getConnection()) {
            update(c, "DELETE FROM unitas_idempotency WHERE idem_key = ?", key);
            return StoreResult.ok(key);
        } catch (SQLException e) {
            return failed(e);
        }
    }

    private StoreResult<IdempotencyRecord> find(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = prepare(c, "SELECT " + COLUMNS + " FROM unitas_idempotency WHERE idem_key = ?",
                                            key);
             ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return StoreResult.notFound(region, "idempotency record", key);
            }
            int status = rs.getInt(4);
            StoredResponse response = rs.wasNull() ? null : new StoredResponse(status, rs.getString(5));
            return StoreResult.ok(new IdempotencyRecord(rs.getString(1), rs.getString(2), rs.getString(3), response,
                                                        Instant.ofEpochMilli(rs.getLong(6)),
                                                        Instant.ofEpochMilli(rs.getLong(7))));
        }
    }

    private <T> StoreResult<T> failed(SQLException e) {
        return READ_ONLY_SQL_TRANSACTION.equals(e.getSQLState()) || H2_DATABASE_IS_READ_ONLY.equals(e.getSQLState())
               ? StoreResult.readOnly(region) : StoreResult.unavailable(region, e.getMessage());
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

    /** A SQL NULL parameter of a given {@link Types} type, which some drivers need to know. */
    private record TypedNull(int sqlType) {}
}
