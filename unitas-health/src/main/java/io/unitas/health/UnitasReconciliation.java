package io.unitas.health;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.unitas.core.Region;
import io.unitas.core.health.UnitReconciliation;

/**
 * The queries that read a region's conflicts and drift per unit from unitas's tables, for the {@code postgres} check
 * with {@code unitas-schema: true}: the entities the merge kept as siblings ({@code unitas_siblings}, version 7) and
 * each unit's last reconciliation pass ({@code unitas_reconcile_passes}, version 8, written by the data layer's
 * {@code DigestReconciler}). A table the database does not hold yet is read as empty.
 */
final class UnitasReconciliation {

    /** Per unit: the entities in conflict, and when the oldest was detected. */
    static final String SIBLINGS = "SELECT unit, COUNT(*), MIN(detected_at) FROM unitas_siblings GROUP BY unit";
    /** Per unit: its last reconciliation pass. */
    static final String PASSES = "SELECT unit, home, at, window_ms, ranges_differing, ranges_pending, keys_repaired,"
                                 + " failure FROM unitas_reconcile_passes";

    private UnitasReconciliation() {}

    /**
     * What {@code c} holds, stamped {@code at}, units in name order; {@link UnitReconciliation#NONE} when it holds
     * neither table.
     */
    static UnitReconciliation read(Connection c, Instant at) throws SQLException {
        boolean siblings = exists(c, "unitas_siblings");
        boolean passes = exists(c, "unitas_reconcile_passes");
        if (!siblings && !passes) {
            return UnitReconciliation.NONE;
        }
        Map<String, Integer> open = new TreeMap<>();
        Map<String, Instant> oldest = new TreeMap<>();
        if (siblings) {
            try (PreparedStatement ps = c.prepareStatement(SIBLINGS); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    open.put(rs.getString(1), rs.getInt(2));
                    oldest.put(rs.getString(1), Instant.ofEpochMilli(rs.getLong(3)));
                }
            }
        }
        Map<String, UnitReconciliation.Pass> last = new TreeMap<>();
        if (passes) {
            try (PreparedStatement ps = c.prepareStatement(PASSES); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (Region.isValidId(rs.getString(2)) && rs.getLong(4) > 0) { // else not written by unitas
                        last.put(rs.getString(1), new UnitReconciliation.Pass(Region.of(rs.getString(2)),
                                Instant.ofEpochMilli(rs.getLong(3)), Duration.ofMillis(rs.getLong(4)),
                                rs.getInt(5), rs.getInt(6), rs.getInt(7), Optional.ofNullable(rs.getString(8))));
                    }
                }
            }
        }
        Map<String, UnitReconciliation.Unit> units = new TreeMap<>();
        open.forEach((unit, n) -> units.put(unit, new UnitReconciliation.Unit(n, Optional.of(oldest.get(unit)),
                                                                              Optional.ofNullable(last.get(unit)))));
        last.forEach((unit, pass) -> units.putIfAbsent(unit, new UnitReconciliation.Unit(0, Optional.empty(),
                                                                                         Optional.of(pass))));
        return UnitReconciliation.of(at, units);
    }

    private static boolean exists(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }
}
