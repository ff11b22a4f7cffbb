package io.unitas.data.outbox;

import io.unitas.core.Region;
import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.data.reconcile.UnitMove;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link MoveLog} in {@code unitas_unit_homes} and {@code unitas_unit_moves}. A move is recorded in one transaction
 * with a conditional update of the unit's home row ({@code WHERE home = <last seen>}), so two processes observing the
 * same move record it once. The moves are read once on start and kept in memory, updated as this log records them.
 */
final class JdbcMoveLog implements MoveLog {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcMoveLog.class);
    private static final String UNIQUE_VIOLATION = "23505";

    private final Region region;
    private final DataSource dataSource;
    private final Clock clock;
    private final Map<String, Region> homes = new ConcurrentHashMap<>();
    private final Map<String, List<RecordedMove>> moves = new ConcurrentHashMap<>();

    JdbcMoveLog(Region region, DataSource dataSource, Clock clock) {
        this.region = Objects.requireNonNull(region, "region");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.clock = Objects.requireNonNull(clock, "clock");
        UnitasSchema.migrate(dataSource, clock);
        load();
    }

    private void load() {
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT unit, home FROM unitas_unit_homes");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    homes.put(rs.getString(1), Region.of(rs.getString(2)));
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT unit, from_region, to_region, moved_at,"
                                                           + " shipped_through FROM unitas_unit_moves"
                                                           + " ORDER BY unit, move_no");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    RecordedMove move = new RecordedMove(new UnitMove(rs.getString(1), Region.of(rs.getString(2)),
                            Region.of(rs.getString(3)), Instant.ofEpochMilli(rs.getLong(4))), rs.getLong(5));
                    moves.computeIfAbsent(move.unit(), u -> new ArrayList<>()).add(move);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(region + ": unitas_unit_moves: cannot read: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized Optional<RecordedMove> observe(String unit, Region home) {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(home, "home");
        Region last = homes.get(unit);
        if (home.equals(last)) {
            return Optional.empty();
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                Optional<RecordedMove> recorded = record(c, unit, last, home);
                c.commit();
                homes.put(unit, home);
                recorded.ifPresent(m -> {
                    moves.computeIfAbsent(unit, u -> new ArrayList<>()).add(m);
                    LOG.info("{}: unit {} moved from {} to {}; {}'s changes of it applied here through position {}",
                             region, unit, m.from(), m.to(), m.from(), m.shippedThrough());
                });
                return recorded;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
                // another process of this region recorded it first: take what it recorded
                moves.clear();
                homes.clear();
                load();
                return Optional.empty();
            }
            throw new IllegalStateException(region + ": unitas_unit_moves: cannot record unit " + unit + " at "
                                            + home + ": " + e.getMessage(), e);
        }
    }

    private Optional<RecordedMove> record(Connection c, String unit, Region last, Region home) throws SQLException {
        long now = clock.millis();
        if (last == null) {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO unitas_unit_homes (unit, home, seen_at)"
                                                           + " VALUES (?, ?, ?)")) {
                ps.setString(1, unit);
                ps.setString(2, home.id());
                ps.setLong(3, now);
                ps.executeUpdate();
            }
            return Optional.empty();
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE unitas_unit_homes SET home = ?, seen_at = ?"
                                                       + " WHERE unit = ? AND home = ?")) {
            ps.setString(1, home.id());
            ps.setLong(2, now);
            ps.setString(3, unit);
            ps.setString(4, last.id());
            if (ps.executeUpdate() != 1) {
                throw new SQLException("unit " + unit + " moved by another process", UNIQUE_VIOLATION);
            }
        }
        long shipped = 0;
        try (PreparedStatement ps = c.prepareStatement("SELECT applied_seq FROM unitas_applied"
                                                       + " WHERE origin = ? AND unit = ?")) {
            ps.setString(1, last.id());
            ps.setString(2, unit);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    shipped = rs.getLong(1);
                }
            }
        }
        int number = moves.getOrDefault(unit, List.of()).size() + 1;
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO unitas_unit_moves (unit, move_no, from_region,"
                                                       + " to_region, moved_at, shipped_through)"
                                                       + " VALUES (?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, unit);
            ps.setInt(2, number);
            ps.setString(3, last.id());
            ps.setString(4, home.id());
            ps.setLong(5, now);
            ps.setLong(6, shipped);
            ps.executeUpdate();
        }
        return Optional.of(new RecordedMove(new UnitMove(unit, last, home, Instant.ofEpochMilli(now)), shipped));
    }

    @Override
    public List<RecordedMove> moves(String unit) {
        synchronized (this) {
            return List.copyOf(moves.getOrDefault(unit, List.of()));
        }
    }

    @Override
    public Optional<RecordedMove> crossed(ChangeEnvelope change) {
        List<RecordedMove> of = moves(change.unit());
        return of.isEmpty() ? Optional.empty() : MoveLog.crossed(of, change);
    }

    @Override
    public String toString() {
        return "MoveLog{" + region + '}';
    }
}
