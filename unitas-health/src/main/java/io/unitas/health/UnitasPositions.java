package io.unitas.health;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.unitas.core.Region;
import io.unitas.core.health.UnitPositions;

/**
 * The two queries that read a region's replication positions from unitas's tables, for the {@code postgres} check
 * with {@code unitas-schema: true}. A copy of {@code io.unitas.data.outbox.JdbcUnitPositions}'s, held equal to it by
 * a test: the agent then carries no data layer (its HTTP server, embedded database and meters) for two statements.
 */
final class UnitasPositions {

    /** Per unit: changes kept, the oldest position and its time, the newest position and its time. */
    static final String WRITTEN = "SELECT k.unit, k.kept, k.oldest, o.written_at, k.head, h.written_at"
            + " FROM (SELECT unit, COUNT(*) AS kept, MIN(position_id) AS oldest, MAX(position_id) AS head"
            + " FROM unitas_outbox GROUP BY unit) k"
            + " JOIN unitas_outbox o ON o.position_id = k.oldest JOIN unitas_outbox h ON h.position_id = k.head"
            + " ORDER BY k.unit";
    /** Per origin and unit: the last position applied here. */
    static final String APPLIED = "SELECT origin, unit, applied_seq FROM unitas_applied ORDER BY origin, unit";

    private UnitasPositions() {}

    /** The positions {@code c} holds for {@code region}, stamped {@code at}; applied rows of itself are left out. */
    static UnitPositions read(Connection c, Region region, Instant at) throws SQLException {
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
}
