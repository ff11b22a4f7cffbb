package io.unitas.data.outbox;

import io.unitas.core.Region;
import io.unitas.data.jdbc.UnitasSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * {@link Outbox} in {@code unitas_outbox}, one row per change keyed by its position from the sequence
 * {@code unitas_outbox_positions}.
 *
 * <p>Positions are taken in one order and committed in another: a transaction may take position 10, another 11 and
 * commit first. Reading past 11 while 10 is open would skip 10 for good. So a read stops at a horizon: the highest
 * position below which every transaction that took one has ended. On PostgreSQL the horizon is found from the
 * sequence and transaction ids: read the sequence's last value M, then (a later statement, which takes and commits
 * a transaction id of its own) the next transaction id X. A transaction that took a position at most M held a
 * transaction id before taking it (the append assigns one first), so one below X; once the oldest running
 * transaction id ({@code xmin} of a later snapshot) reaches X, all of them have ended, and M is the horizon. The
 * read checks xmin again a few times, briefly, for the writes in flight when X was taken, so usually that is the same
 * read; a long-running write transaction anywhere on the server holds the horizon (and shows as lag). On H2 (one
 * process, the embedded default) appends update one lock row and so commit in position order: everything committed is
 * below the horizon.
 */
final class JdbcOutbox implements Outbox {

    /** Candidates kept while a long transaction holds the horizon; the newest is replaced beyond this. */
    private static final int MAX_CANDIDATES = 64;
    /** How often a read checks again for the writes in flight when it took its candidate, and the pause between. */
    private static final int HORIZON_CHECKS = 10;
    private static final long HORIZON_CHECK_PAUSE_NANOS = 500_000;

    private final Region origin;
    private final DataSource dataSource;
    private final Clock clock;
    private final boolean postgres;
    /** (M, X) pairs waiting for xmin to reach X, X increasing; guarded by this. */
    private final ArrayDeque<long[]> candidates = new ArrayDeque<>();
    private long horizon; // guarded by this

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
        OutboxStatements.requireTransaction(transaction, origin);
        Instant writtenAt = clock.instant();
        long position = postgres ? appendOnPostgres(transaction, unit, entityType, key, payload, writtenAt)
                                 : appendOnH2(transaction, unit, entityType, key, payload, writtenAt);
        return new ChangeEnvelope(unit, origin, position, 0, entityType, key, payload, writtenAt);
    }

    @Override
    public OutboxWrite writeAndAppend(Connection transaction, String sql, List<?> parameters, String unit,
                                      String entityType, String key, byte[] payload) throws SQLException {
        if (!postgres) {
            return Outbox.super.writeAndAppend(transaction, sql, parameters, unit, entityType, key, payload);
        }
        String write = OutboxStatements.checkedWrite(sql);
        OutboxStatements.requireTransaction(transaction, origin);
        Instant writtenAt = clock.instant();
        // the service's write runs in its CTE to its end (its rows locked) before the outbox row's nextval, which is
        // projected from its count and from tx (the transaction's id, taken first, as the horizon requires); no row
        // written, no change
        try (PreparedStatement ps = transaction.prepareStatement(
                "WITH written AS (" + write + " RETURNING 1),"
                + " counted AS (SELECT count(*) AS n FROM written),"
                + " tx AS MATERIALIZED (SELECT pg_current_xact_id()),"
                + " appended AS (INSERT INTO unitas_outbox (position_id, unit, entity_type, entity_key, payload,"
                + " written_at) SELECT nextval('unitas_outbox_positions'), ?, ?, ?, ?, ? FROM tx, counted"
                + " WHERE counted.n > 0 RETURNING position_id)"
                + " SELECT counted.n, (SELECT position_id FROM appended) FROM counted")) {
            int at = OutboxStatements.bind(ps, 1, parameters);
            ps.setString(at, unit);
            ps.setString(at + 1, entityType);
            ps.setString(at + 2, key);
            ps.setBytes(at + 3, payload);
            ps.setLong(at + 4, writtenAt.toEpochMilli());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                int rows = Math.toIntExact(rs.getLong(1));
                long position = rs.getLong(2);
                return rows == 0 ? new OutboxWrite(0, Optional.empty())
                        : new OutboxWrite(rows, Optional.of(new ChangeEnvelope(unit, origin, position, 0, entityType,
                                                                               key, payload, writtenAt)));
            }
        }
    }

    /**
     * One statement, one round trip: no row lock, one heap row and one index entry. The materialized CTE gives the
     * transaction its id before {@code nextval} runs, which the horizon relies on (a service that appends before its
     * own first write would otherwise take a position while holding no transaction id).
     */
    private static long appendOnPostgres(Connection tx, String unit, String entityType, String key, byte[] payload,
                                         Instant writtenAt) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement(
                "WITH tx AS MATERIALIZED (SELECT pg_current_xact_id())"
                + " INSERT INTO unitas_outbox (position_id, unit, entity_type, entity_key, payload, written_at)"
                + " SELECT nextval('unitas_outbox_positions'), ?, ?, ?, ?, ? FROM tx RETURNING position_id")) {
            ps.setString(1, unit);
            ps.setString(2, entityType);
            ps.setString(3, key);
            ps.setBytes(4, payload);
            ps.setLong(5, writtenAt.toEpochMilli());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** H2: the lock row orders appends until their commit, so positions commit in order. */
    private static long appendOnH2(Connection tx, String unit, String entityType, String key, byte[] payload,
                                   Instant writtenAt) throws SQLException {
        try (PreparedStatement lock = tx.prepareStatement(
                "UPDATE unitas_outbox_lock SET appended = appended + 1 WHERE id = 1")) {
            lock.executeUpdate();
        }
        long position;
        try (PreparedStatement next = tx.prepareStatement("SELECT NEXT VALUE FOR unitas_outbox_positions");
             ResultSet rs = next.executeQuery()) {
            rs.next();
            position = rs.getLong(1);
        }
        try (PreparedStatement insert = tx.prepareStatement(
                "INSERT INTO unitas_outbox (position_id, unit, entity_type, entity_key, payload, written_at)"
                + " VALUES (?, ?, ?, ?, ?, ?)")) {
            insert.setLong(1, position);
            insert.setString(2, unit);
            insert.setString(3, entityType);
            insert.setString(4, key);
            insert.setBytes(5, payload);
            insert.setLong(6, writtenAt.toEpochMilli());
            insert.executeUpdate();
        }
        return position;
    }

    @Override
    public List<ChangeEnvelope> after(long afterPosition, int limit) {
        return query("read the changes", c -> {
            long below = horizon(c);
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT position_id, unit, entity_type, entity_key, payload, written_at FROM unitas_outbox"
                    + " WHERE position_id > ? AND position_id <= ? ORDER BY position_id LIMIT ?")) {
                ps.setLong(1, afterPosition);
                ps.setLong(2, below);
                ps.setInt(3, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    List<ChangeEnvelope> changes = new ArrayList<>();
                    while (rs.next()) {
                        changes.add(new ChangeEnvelope(rs.getString(2), origin, rs.getLong(1), 0, rs.getString(3),
                                                       rs.getString(4), rs.getBytes(5),
                                                       Instant.ofEpochMilli(rs.getLong(6))));
                    }
                    return List.copyOf(changes);
                }
            }
        });
    }

    /** The highest position below which every transaction that took one has ended (see the class comment). */
    private synchronized long horizon(Connection c) throws SQLException {
        if (!postgres) {
            return Long.MAX_VALUE;
        }
        long taken;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END"
                                           + " FROM unitas_outbox_positions")) {
            rs.next();
            taken = rs.getLong(1);
        }
        // the next transaction id: a statement of its own (auto-commit) that takes one and commits at once, so it
        // exceeds every id handed out before M was read. The snapshot's xmax would not do: it is the latest
        // completed id + 1, and a transaction that took a position may hold an id above it.
        long next;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_current_xact_id()::text::bigint")) {
            rs.next();
            next = rs.getLong(1);
        }
        if (candidates.size() >= MAX_CANDIDATES) {
            candidates.removeLast(); // later and later candidates are safe later; keeping the older ones is enough
        }
        candidates.addLast(new long[] {taken, next});
        release(oldestRunning(c));
        // writes in flight when the id was taken are short: wait for them briefly rather than a whole round, which
        // would add a round to the lag of nearly every change under a steady stream of writes. A long transaction
        // holds the candidate beyond these checks, as before.
        for (int check = 0; check < HORIZON_CHECKS && !candidates.isEmpty()
                            && candidates.peekLast()[0] > horizon; check++) {
            LockSupport.parkNanos(HORIZON_CHECK_PAUSE_NANOS);
            release(oldestRunning(c));
        }
        return horizon;
    }

    /** The oldest transaction id still running on the server, from a snapshot taken now. */
    private static long oldestRunning(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Moves the horizon past every candidate whose transaction id {@code xmin} has reached; guarded by this. */
    private void release(long xmin) {
        while (!candidates.isEmpty() && candidates.peekFirst()[1] <= xmin) {
            horizon = Math.max(horizon, candidates.removeFirst()[0]);
        }
    }

    @Override
    public Map<String, Instant> oldestAfter(long afterPosition) {
        return query("read the changes", c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT unit, MIN(written_at) FROM unitas_outbox WHERE position_id > ? GROUP BY unit")) {
                ps.setLong(1, afterPosition);
                try (ResultSet rs = ps.executeQuery()) {
                    Map<String, Instant> oldest = new LinkedHashMap<>();
                    while (rs.next()) {
                        oldest.put(rs.getString(1), Instant.ofEpochMilli(rs.getLong(2)));
                    }
                    return oldest;
                }
            }
        });
    }

    /**
     * On PostgreSQL the trim commits without waiting for its WAL flush: lost in a crash, its rows come back and are
     * read again, and the shipper passes over what every target acknowledged and trims them again. So the shipping
     * round does not wait for a disk flush of its own.
     */
    @Override
    public int trim(long throughPosition) {
        return query("trim", c -> {
            if (!postgres) {
                return deleteThrough(c, throughPosition);
            }
            c.setAutoCommit(false);
            try {
                try (Statement s = c.createStatement()) {
                    s.execute("SET LOCAL synchronous_commit TO OFF");
                }
                int deleted = deleteThrough(c, throughPosition);
                c.commit();
                return deleted;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        });
    }

    private static int deleteThrough(Connection c, long throughPosition) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM unitas_outbox WHERE position_id <= ?")) {
            ps.setLong(1, throughPosition);
            return ps.executeUpdate();
        }
    }

    @Override
    public Map<String, Long> lastSequences() {
        return query("read the units", c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT unit, MAX(position_id) FROM unitas_outbox GROUP BY unit ORDER BY unit");
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
                    "SELECT position_id, entity_type, entity_key, payload, written_at FROM unitas_outbox"
                    + " WHERE unit = ? AND position_id > ? ORDER BY position_id LIMIT ?")) {
                ps.setString(1, unit);
                ps.setLong(2, afterSequence);
                ps.setInt(3, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    List<ChangeEnvelope> changes = new ArrayList<>();
                    long previous = afterSequence;
                    while (rs.next()) {
                        changes.add(new ChangeEnvelope(unit, origin, rs.getLong(1), previous, rs.getString(2),
                                                       rs.getString(3), rs.getBytes(4),
                                                       Instant.ofEpochMilli(rs.getLong(5))));
                        previous = rs.getLong(1);
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
                    "SELECT MIN(written_at) FROM unitas_outbox WHERE unit = ? AND position_id > ?")) {
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
            try (PreparedStatement ps = c.prepareStatement(
                    "DELETE FROM unitas_outbox WHERE unit = ? AND position_id <= ?")) {
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
