package io.unitas.data.internal;

import io.unitas.data.IdempotencyStore;
import io.unitas.core.Region;
import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Idempotency records in {@code unitas_idempotency} of one region's database (PostgreSQL or H2, the same SQL).
 * Every call is a few auto-committed statements, so a claim is atomic without holding a transaction open: the
 * primary key decides which of two racing claims wins, and an expired record is taken over by a conditional update
 * that only one claimant can match. A held key is answered from a read, so retries are answered while the database
 * is read-only. A claim finding the key held by the same claim (the same claim token, owner and fingerprint: the
 * claimant sent it again after its answer was lost) is granted again.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {

    private static final String UNIQUE_VIOLATION = "23505";
    private static final String COLUMNS = "idem_key, user_id, payload_hash, response_status, response_body,"
                                          + " created_at, expires_at, claim_token, response_content_type,"
                                          + " response_headers";
    /** A claim that loses a race reads the winner's record; should that keep changing, it gives up after this many. */
    private static final int CLAIM_ATTEMPTS = 3;

    private final Region region;
    private final DataSource dataSource;
    private final Clock clock;

    /** A store of {@code region}'s records in {@code dataSource}, whose unitas tables are migrated first. */
    public JdbcIdempotencyStore(Region region, DataSource dataSource, Clock clock) {
        this.region = Objects.requireNonNull(region, "region");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.clock = Objects.requireNonNull(clock, "clock");
        UnitasSchema.migrate(dataSource, clock);
    }

    /** The record under {@code key}; NOT_FOUND when there is none or it has expired. */
    @Override
    public StoreResult<IdempotencyRecord> idempotencyRecord(String key) {
        return call(c -> {
            IdempotencyRecord found = find(c, key);
            return found == null || found.isExpiredAt(clock.instant())
                   ? StoreResult.notFound(region, "idempotency record", key) : StoreResult.ok(found);
        });
    }

    /**
     * Claims {@code record}'s key for an in-flight request: OK when this call took it (new, or the stored record had
     * expired) or already held it (the same claim sent again, {@link IdempotencyRecord#heldBy}), CONFLICT with the
     * stored record when another request holds it.
     */
    @Override
    public StoreResult<IdempotencyRecord> claim(IdempotencyRecord record) {
        if (!record.inFlight()) {
            throw new IllegalArgumentException("record of " + record.key() + ": completed (expected: in flight)");
        }
        return call(c -> {
            for (int attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
                // Read first: a retry of a held key gets its record without a write, even from a read-only database.
                IdempotencyRecord existing = find(c, record.key());
                if (existing != null && !existing.isExpiredAt(clock.instant())) {
                    if (existing.heldBy(record)) {
                        return StoreResult.ok(existing); // the same claim again: its first answer was lost
                    }
                    return StoreResult.conflict(region, "idempotency key", record.key(), existing);
                }
                if (existing == null && insert(c, record)) {
                    return StoreResult.ok(record);
                }
                if (existing != null && takeOverExpired(c, record)) {
                    return StoreResult.ok(record);
                }
                // another claimant got there between the read and the write: read again
            }
            return StoreResult.unavailable(region, "idempotency key '" + record.key() + "' kept changing while claimed");
        });
    }

    /** Stores the response of the request holding {@code key}; NOT_FOUND when no record is stored. */
    @Override
    public StoreResult<IdempotencyRecord> complete(String key, StoredResponse response) {
        Objects.requireNonNull(response, "response");
        return call(c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE unitas_idempotency SET response_status = ?,"
                                                           + " response_body = ?, response_content_type = ?,"
                                                           + " response_headers = ? WHERE idem_key = ?")) {
                ps.setInt(1, response.status());
                ps.setString(2, response.body());
                ps.setString(3, response.contentType().isEmpty() ? null : response.contentType());
                ps.setString(4, response.headers().isEmpty() ? null : headerLines(response.headers()));
                ps.setString(5, key);
                if (ps.executeUpdate() == 0) {
                    return StoreResult.notFound(region, "idempotency record", key);
                }
            }
            IdempotencyRecord completed = find(c, key);
            return completed == null ? StoreResult.notFound(region, "idempotency record", key)
                                     : StoreResult.ok(completed);
        });
    }

    /** Forgets {@code key}, so a retry may run again (a request that failed without effect); OK even if absent. */
    @Override
    public StoreResult<String> release(String key) {
        return call(c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM unitas_idempotency WHERE idem_key = ?")) {
                ps.setString(1, key);
                ps.executeUpdate();
            }
            return StoreResult.ok(key);
        });
    }

    @Override
    public String toString() {
        return "JdbcIdempotencyStore{" + region + '}';
    }

    private boolean insert(Connection c, IdempotencyRecord r) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO unitas_idempotency (" + COLUMNS + ")"
                                                       + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)")) {
            ps.setString(1, r.key());
            ps.setString(2, r.userId());
            ps.setString(3, r.payloadHash());
            ps.setNull(4, Types.INTEGER);
            ps.setNull(5, Types.VARCHAR);
            ps.setLong(6, r.createdAt().toEpochMilli());
            ps.setLong(7, r.expiresAt().toEpochMilli());
            token(ps, 8, r);
            ps.executeUpdate();
            return true;
        } catch (SQLException e) {
            if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }

    /** Replaces the stored record only if it has expired now; a concurrent taker re-reads it and no longer matches. */
    private boolean takeOverExpired(Connection c, IdempotencyRecord r) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE unitas_idempotency SET user_id = ?, payload_hash = ?,"
                                                       + " response_status = NULL, response_body = NULL,"
                                                       + " response_content_type = NULL, response_headers = NULL,"
                                                       + " created_at = ?, expires_at = ?, claim_token = ?"
                                                       + " WHERE idem_key = ? AND expires_at <= ?")) {
            ps.setString(1, r.userId());
            ps.setString(2, r.payloadHash());
            ps.setLong(3, r.createdAt().toEpochMilli());
            ps.setLong(4, r.expiresAt().toEpochMilli());
            token(ps, 5, r);
            ps.setString(6, r.key());
            ps.setLong(7, clock.millis());
            return ps.executeUpdate() == 1;
        }
    }

    /** The claim token, NULL for none (records of before V3 read the same way). */
    private static void token(PreparedStatement ps, int index, IdempotencyRecord r) throws SQLException {
        if (r.claimToken().isEmpty()) {
            ps.setNull(index, Types.VARCHAR);
        } else {
            ps.setString(index, r.claimToken());
        }
    }

    private static IdempotencyRecord find(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM unitas_idempotency"
                                                       + " WHERE idem_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                int status = rs.getInt(4);
                StoredResponse response = rs.wasNull() ? null : new StoredResponse(
                        status, rs.getString(5), rs.getString(9), headers(rs.getString(10)));
                return new IdempotencyRecord(rs.getString(1), rs.getString(2), rs.getString(3), response,
                                             Instant.ofEpochMilli(rs.getLong(6)), Instant.ofEpochMilli(rs.getLong(7)),
                                             rs.getString(8) == null ? "" : rs.getString(8));
            }
        }
    }

    /** The headers as stored: one {@code Name: value} per line (values are one line, names have no colon). */
    static String headerLines(Map<String, String> headers) {
        StringBuilder lines = new StringBuilder();
        headers.forEach((name, value) -> lines.append(name).append(": ").append(value).append('\n'));
        return lines.toString();
    }

    static Map<String, String> headers(String lines) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (lines != null) {
            for (String line : lines.split("\n")) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    headers.put(line.substring(0, colon), line.substring(colon + 1).strip());
                }
            }
        }
        return headers;
    }

    /** Runs {@code work} on one auto-committed connection; a refused or failed database becomes a result. */
    private <T> StoreResult<T> call(Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            return work.run(c);
        } catch (SQLException e) {
            return switch (SqlFailure.of(e)) {
                case READ_ONLY -> StoreResult.readOnly(region);
                case UNREACHABLE, REJECTED -> StoreResult.unavailable(region, e.getMessage());
            };
        }
    }

    @FunctionalInterface
    private interface Work<T> {
        StoreResult<T> run(Connection c) throws SQLException;
    }
}
