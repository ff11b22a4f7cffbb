package io.unitas.health;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import io.unitas.core.RegionHealth;
import io.unitas.core.health.ProbeResult;

/**
 * Probes MySQL or MariaDB on a fresh connection: {@code @@read_only}, {@code @@super_read_only} (MySQL only) and,
 * when the server is a replica, {@code Seconds_Behind_Source} ({@code Seconds_Behind_Master} on older servers).
 * A NULL lag means replication is broken, not that there is no lag.
 */
final class MysqlProbe extends SqlProbe {

    MysqlProbe(ProbeConfig config) {
        super(config, Targets.mysql(config.target()));
    }

    @Override
    ProbeResult examine(Connection c, Statement s, Duration timeout, Map<String, Object> seen, long start)
            throws SQLException {
        boolean readOnly = flag(s, "@@read_only");
        Boolean superReadOnly = hasVariable(s, "super_read_only") ? flag(s, "@@super_read_only") : null;
        seen.put("read_only", readOnly);
        if (superReadOnly != null) {
            seen.put("super_read_only", superReadOnly);
        }
        Map<String, String> replica = replicaStatus(s);
        seen.put("role", replica == null ? "primary" : "standby");
        seen.put("writable", !readOnly && !Boolean.TRUE.equals(superReadOnly));
        if (replica == null) {
            return primary(readOnly, superReadOnly, seen, start);
        }
        return standby(replica, seen, start);
    }

    private ProbeResult primary(boolean readOnly, Boolean superReadOnly, Map<String, Object> seen, long start) {
        if (config.role() == ProbeConfig.Role.STANDBY) {
            return ProbeResult.down(Latency.since(start), "not a replica (expected: standby)",
                                    RegionHealth.UNKNOWN_LAG, seen);
        }
        if (readOnly || Boolean.TRUE.equals(superReadOnly)) {
            String which = readOnly ? "read_only=ON" : "super_read_only=ON";
            return ProbeResult.down(Latency.since(start), "read-only (" + which + ")", RegionHealth.UNKNOWN_LAG, seen);
        }
        return ProbeResult.up(Latency.since(start), "primary, writable", RegionHealth.UNKNOWN_LAG, seen);
    }

    private ProbeResult standby(Map<String, String> replica, Map<String, Object> seen, long start) {
        String io = first(replica, "replica_io_running", "slave_io_running");
        String sql = first(replica, "replica_sql_running", "slave_sql_running");
        String behind = first(replica, "seconds_behind_source", "seconds_behind_master");
        seen.put("io_running", String.valueOf(io));
        seen.put("sql_running", String.valueOf(sql));
        long lag = behind == null ? RegionHealth.UNKNOWN_LAG : Long.parseLong(behind) * 1000;
        seen.put("replication_lag_ms", lag);
        if (config.role() == ProbeConfig.Role.PRIMARY) {
            return ProbeResult.down(Latency.since(start), "replica of " + replica.get("master_host")
                                    + " (expected: primary)", lag, seen);
        }
        if (behind == null) {
            String detail = Stream.of(replica.get("last_io_error"), replica.get("last_sql_error"))
                    .filter(e -> e != null && !e.isEmpty()).findFirst().orElse("");
            return ProbeResult.down(Latency.since(start), "replication broken: Seconds_Behind_Source is NULL (IO thread: "
                    + io + ", SQL thread: " + sql + (detail.isEmpty() ? "" : ", error: " + detail) + ")", lag, seen);
        }
        long maxLagMs = config.maxLag().toMillis();
        if (maxLagMs > 0 && lag > maxLagMs) {
            return ProbeResult.down(Latency.since(start), "replication lag " + lag + "ms (expected: <= " + maxLagMs
                                    + "ms)", lag, seen);
        }
        return ProbeResult.up(Latency.since(start), "standby, lag " + lag + "ms", lag, seen);
    }

    private static boolean flag(Statement s, String variable) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT " + variable)) {
            rs.next();
            return rs.getInt(1) != 0;
        }
    }

    private static boolean hasVariable(Statement s, String name) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW VARIABLES LIKE '" + name + "'")) {
            return rs.next();
        }
    }

    /** The replica status row by lowercase column name, or {@code null} when the server replicates from nothing. */
    private static Map<String, String> replicaStatus(Statement s) throws SQLException {
        SQLException modern;
        try {
            return row(s, "SHOW REPLICA STATUS");
        } catch (SQLException e) {
            modern = e;
        }
        try {
            return row(s, "SHOW SLAVE STATUS");
        } catch (SQLException e) {
            e.addSuppressed(modern);
            throw e;
        }
    }

    private static Map<String, String> row(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                return null;
            }
            ResultSetMetaData meta = rs.getMetaData();
            Map<String, String> row = new HashMap<>();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                row.put(meta.getColumnLabel(i).toLowerCase(Locale.ROOT), rs.getString(i));
            }
            return row;
        }
    }

    private static String first(Map<String, String> row, String... columns) {
        for (String column : columns) {
            if (row.containsKey(column)) {
                return row.get(column);
            }
        }
        return null;
    }

    @Override
    Connection connect(Duration timeout) throws SQLException {
        String ms = String.valueOf(Math.max(1, timeout.toMillis()));
        return DriverManager.getConnection(target.url(), target.with(Map.of("connectTimeout", ms,
                                                                            "socketTimeout", ms)));
    }
}
