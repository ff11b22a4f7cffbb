package io.unitas.data.outbox;

import io.unitas.core.Region;
import io.unitas.data.jdbc.UnitasSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * {@link Outbox} in {@code unitas_outbox}, with each unit's last sequence in {@code unitas_outbox_units}: the
 * append's update of that row takes the row lock that orders one unit's writers until their commit.
 */
final class JdbcOutbox implements Outbox {

    private static final String UNIQUE_VIOLATION = "23505";

    private final Region origin;
    private final DataSource dataSource;
    private final Clock clock;
    /** Units whose counter row is known to exist; the row is created outside the callers' transactions. */
    private final Set<String> knownUnits = ConcurrentHashMap.newKeySet();
    private final boolean postgres;

    JdbcOutbox(Region origin, DataSource dataSource, Clock clock) {
        this.origin = Objects.requireNonNull(origin, "origin");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.clock = Objects.requireNonNull(clock, "clock");
        UnitasSchema.migrate(dataSource, clock);
        try (Connection c = dataSource.getConnection()) {
            this.postgres = "PostgreSQL".equals(c.getMetaData().getDatabaseProductName());
        } catch (SQLException e) {
            throw new IllegalStateException(origin + ": outbox: cannot reach the database: " + e.getMessage(), e);
        }
    }

    @Override
    public Region origin() {
        return origin;
    }

    @Override
    public ChangeEnvelope append(Connection transaction, String unit, String entityType, String key, byte[] payload)
            throws SQLException {
        if (transaction.getAutoCommit()) {
            throw new IllegalStateException("outbox of " + origin + ": connection in auto-commit mode (expected:"
                                            + " the transaction of the write the change belongs to)");
        }
        ensureUnit(unit);
        Instant writtenAt = clock.instant();
        long sequence;
        try {
            sequence = postgres ? appendInOneStatement(transaction, unit, entityType, key, payload, writtenAt)
                                : appendInThreeStatements(transaction, unit, entityType, key, payload, writtenAt);
        } catch (SQLException e) {
            knownUnits.remove(unit); // should its counter row be gone, the next append creates it again
            throw e;
        }
        return new ChangeEnvelope(unit, origin, sequence, entityType, key, payload, writtenAt);
    }

    /**
     * PostgreSQL: the counter's update and the change's insert in one round trip (a data-modifying WITH), which is
     * most of the outbox's cost on a fast network.
     */
    private static long appendInOneStatement(Connection tx, String unit, String entityType, String key,
                                             byte[] payload, Instant writtenAt) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement(
                "WITH bumped AS (UPDATE unitas_outbox_units SET last_seq = last_seq + 1 WHERE unit = ?"
                + " RETURNING last_seq)"
                + " INSERT INTO unitas_outbox (unit, seq, entity_type, entity_key, payload, written_at)"
                + " SELECT ?, last_seq, ?, ?, ?, ? FROM bumped RETURNING seq")) {
            ps.setString(1, unit);
            ps.setString(2, unit);
            ps.setString(3, entityType);
            ps.setString(4, key);
            ps.setBytes(5, payload);
            ps.setLong(6, writtenAt.toEpochMilli());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("unitas_outbox_units: no row for unit '" + unit + "'");
                }
                return rs.getLong(1);
            }
        }
    }

    /** Portable SQL (H2): bump the counter, read it under the row lock the bump took, insert the change. */
    private static long appendInThreeStatements(Connection tx, String unit, String entityType, String key,
                                                byte[] payload, Instant writtenAt) throws SQLException {
        try (PreparedStatement bump = tx.prepareStatement(
                "UPDATE unitas_outbox_units SET last_seq = last_seq + 1 WHERE unit = ?")) {
            bump.setString(1, unit);
            if (bump.executeUpdate() != 1) {
                throw new SQLException("unitas_outbox_units: no row for unit '" + unit + "'");
            }
        }
        long sequence;
        try (PreparedStatement read = tx.prepareStatement("SELECT last_seq FROM unitas_outbox_units WHERE unit = ?")) {
            read.setString(1, unit);
            try (ResultSet rs = read.executeQuery()) {
                rs.next();
                sequence = rs.getLong(1);
            }
        }
        try (PreparedStatement insert = tx.prepareStatement(
                "INSERT INTO unitas_outbox (unit, seq, entity_type, entity_key, payload, written_at)"
                + " VALUES (?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, unit);
            insert.setLong(2, sequence);
            insert.setString(3, entityType);
            insert.setString(4, key);
            insert.setBytes(5, payload);
            insert.setLong(6, writtenAt.toEpochMilli());
            insert.executeUpdate();
        }
        return sequence;
    }

    /** Creates {@code unit}'s counter row in its own transaction, so no caller's transaction meets a key race. */
    private void ensureUnit(String unit) throws SQLException {
        if (knownUnits.contains(unit)) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO unitas_outbox_units (unit, last_seq) VALUES (?, 0)")) {
                ps.setString(1, unit);
                ps.executeUpdate();
            } catch (SQLException e) {
                if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
                    throw e;
                }
            }
        }
        knownUnits.add(unit);
    }

    @Override
    public Map<String, Long> lastSequences() {
        return query("read the units", c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT unit, last_seq FROM unitas_outbox_units WHERE last_seq > 0 ORDER BY unit");
                 ResultSet rs = ps.executeQuery()) {
                Map<String, Long> last = new LinkedHashMap<>();
                while (rs.next()) {
                    last.put(rs.getString(1), rs.getLong(2));
                }
                return last;
            }
        });
    }

    @Override
    public List<ChangeEnvelope> after(String unit, long afterSequence, int limit) {
        return query("read unit " + unit, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT seq, entity_type, entity_key, payload, written_at FROM unitas_outbox"
                    + " WHERE unit = ? AND seq > ? ORDER BY seq LIMIT ?")) {
                ps.setString(1, unit);
                ps.setLong(2, afterSequence);
                ps.setInt(3, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    List<ChangeEnvelope> changes = new ArrayList<>();
                    while (rs.next()) {
                        changes.add(new ChangeEnvelope(unit, origin, rs.getLong(1), rs.getString(2), rs.getString(3),
                                                       rs.getBytes(4), Instant.ofEpochMilli(rs.getLong(5))));
                    }
                    return List.copyOf(changes);
                }
            }
        });
    }

    @Override
    public Optional<Instant> oldestAfter(String unit, long afterSequence) {
        return query("read unit " + unit, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT MIN(written_at) FROM unitas_outbox WHERE unit = ? AND seq > ?")) {
                ps.setString(1, unit);
                ps.setLong(2, afterSequence);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long millis = rs.getLong(1);
                    return rs.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(millis));
                }
            }
        });
    }

    @Override
    public int trim(String unit, long throughSequence) {
        return query("trim unit " + unit, c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM unitas_outbox WHERE unit = ? AND seq <= ?")) {
                ps.setString(1, unit);
                ps.setLong(2, throughSequence);
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public String toString() {
        return "Outbox{" + origin + '}';
    }

    private <T> T query(String what, Query<T> query) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            return query.run(c);
        } catch (SQLException e) {
            throw new IllegalStateException(origin + ": outbox: cannot " + what + ": " + e.getMessage(), e);
        }
    }

    @FunctionalInterface
    private interface Query<T> {
        T run(Connection c) throws SQLException;
    }
}
