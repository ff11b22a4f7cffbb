package io.unitas.data.outbox;

import io.unitas.core.Region;
import io.unitas.core.health.UnitPositions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Reads one region's replication positions from its own database's unitas tables: per unit, the changes written here
 * and still kept in {@code unitas_outbox} (count, oldest, newest), and per other region and unit, the position
 * applied here ({@code unitas_applied}). What a region reports so that the control plane can compute the lag of
 * every link; the two queries are the only place that reads them for that (the health agent's {@code postgres} check
 * with {@code unitas_schema: true} runs the same text, checked by a test).
 *
 * <p>A service that ships changes can report its own positions by running a health server with this as its source:
 * <pre>{@code
 * JdbcUnitPositions positions = new JdbcUnitPositions(Region.of("cn"), dataSource, Clock.systemUTC());
 * HealthServer.start(healthConfig, Clock.systemUTC(), UnitLagSource.positions(positions::read));
 * }</pre>
 */
public final class JdbcUnitPositions {

    /** Per unit: changes kept, the oldest position and its time, the newest position and its time. */
    public static final String WRITTEN = "SELECT k.unit, k.kept, k.oldest, o.written_at, k.head, h.written_at"
            + " FROM (SELECT unit, COUNT(*) AS kept, MIN(position_id) AS oldest, MAX(position_id) AS head"
            + " FROM unitas_outbox GROUP BY unit) k"
            + " JOIN unitas_outbox o ON o.position_id = k.oldest JOIN unitas_outbox h ON h.position_id = k.head"
            + " ORDER BY k.unit";
    /** Per origin and unit: the last position applied here. */
    public static final String APPLIED = "SELECT origin, unit, applied_seq FROM unitas_applied ORDER BY origin, unit";

    private final Region region;
    private final DataSource dataSource;
    private final Clock clock;

    /** Reads {@code region}'s positions from {@code dataSource}, stamped with {@code clock}'s time. */
    public JdbcUnitPositions(Region region, DataSource dataSource, Clock clock) {
        this.region = Objects.requireNonNull(region, "region");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * The positions now, both queries on one connection.
     *
     * @throws IllegalStateException naming the region and the database's message when they cannot be read (no
     *                               connection, unitas's tables missing)
     */
    public UnitPositions read() {
        try (Connection c = dataSource.getConnection()) {
            return read(c, region, clock.instant());
        } catch (SQLException e) {
            throw new IllegalStateException(region + ": unitas_outbox, unitas_applied: cannot read positions: "
                                            + e.getMessage(), e);
        }
    }

    /**
     * The positions {@code c} holds for {@code region}, stamped {@code at}. An applied row of the region itself, or
     * of an origin that is no region id, is left out (no applier writes either).
     */
    public static UnitPositions read(Connection c, Region region, Instant at) throws SQLException {
        Map<String, UnitPositions.Written> written = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement(WRITTEN); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                written.put(rs.getString(1), new UnitPositions.Written(rs.getLong(2), rs.getLong(3),
                        Instant.ofEpochMilli(rs.getLong(4)), rs.getLong(5), Instant.ofEpochMilli(rs.getLong(6))));
            }
        }
        Map<Region, Map<String, Long>> applied = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement(APPLIED); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String origin = rs.getString(1);
                if (Region.isValidId(origin) && !origin.equals(region.id())) {
                    applied.computeIfAbsent(Region.of(origin), o -> new LinkedHashMap<>())
                           .put(rs.getString(2), rs.getLong(3));
                }
            }
        }
        return UnitPositions.of(at, written, applied);
    }

    @Override
    public String toString() {
        return "JdbcUnitPositions{" + region + '}';
    }
}
