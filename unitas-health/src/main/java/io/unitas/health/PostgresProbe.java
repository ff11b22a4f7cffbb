package io.unitas.health;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.health.ProbeResult;
import io.unitas.core.health.UnitPositions;
import io.unitas.core.health.UnitReconciliation;

/**
 * Probes PostgreSQL on a fresh connection each time (so "cannot connect" is seen too): its role
 * ({@code pg_is_in_recovery()}), whether it takes writes ({@code transaction_read_only}, and optionally a canary
 * write of the heartbeat row), and its replication: on a primary the standbys' {@code replay_lag} and LSN
 * distance from {@code pg_stat_replication}; on a standby how old the data it serves is.
 *
 * <p>A standby's lag is 0 while its WAL receiver streams and it has replayed everything it received; otherwise
 * it is the age of the newest heartbeat row it has replayed (written by the primary's probe with
 * {@code heartbeat: true}), or, without a heartbeat table, the age of the last replayed transaction. The heartbeat
 * keeps an idle primary from looking like lag.
 */
final class PostgresProbe extends SqlProbe {

    static final String HEARTBEAT_TABLE = "unitas_heartbeat";
    static final String HEARTBEAT_ID = "unitas";

    /** The region whose positions this reads, and the clock that stamps them; null when it reads none. */
    private final Region region;
    private final Clock clock;
    /** The positions of the last probe; NONE when it could not read them (or reads none). */
    private volatile UnitPositions positions = UnitPositions.NONE;
    /** Why the last probe could not read them, empty when it could. */
    private volatile String positionsProblem = "";
    /** The conflicts and drift per unit of the last probe; NONE when it could not read them (or reads none). */
    private volatile UnitReconciliation reconciliation = UnitReconciliation.NONE;

    PostgresProbe(ProbeConfig config) {
        this(config, null, null);
    }

    /** A probe that, with {@code unitas-schema: true}, reads {@code region}'s positions stamped by {@code clock}. */
    PostgresProbe(ProbeConfig config, Region region, Clock clock) {
        super(config, Targets.postgres(config.target()));
        this.region = config.unitasSchema() ? region : null;
        this.clock = clock;
    }

    /** Whether this probe reads unitas's positions. */
    boolean readsPositions() {
        return region != null;
    }

    /** The positions its last run read; {@link UnitPositions#NONE} when it could not (see {@link #positionsProblem}). */
    UnitPositions positions() {
        return positions;
    }

    /** The open siblings and reconciliation passes per unit its last run read; NONE when it read none. */
    UnitReconciliation reconciliation() {
        return reconciliation;
    }

    /** Why its last run could not read positions; empty when it could. */
    String positionsProblem() {
        return positionsProblem;
    }

    @Override
    public ProbeResult probe(Duration timeout) {
        ProbeResult result = super.probe(timeout);
        if (readsPositions() && result.details().get("unitas_positions") == null) {
            // not connected, or a standby: the last positions say nothing about now
            positions = UnitPositions.NONE;
            reconciliation = UnitReconciliation.NONE;
            positionsProblem = "not read: " + (result.up() ? "not the primary" : result.reason());
        }
        return result;
    }

    @Override
    ProbeResult examine(Connection c, Statement s, Duration timeout, Map<String, Object> seen, long start)
            throws SQLException {
        s.setQueryTimeout(seconds(timeout));
        boolean standby;
        boolean readOnly;
        try (ResultSet rs = s.executeQuery(
                "SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on'")) {
            rs.next();
            standby = rs.getBoolean(1);
            readOnly = rs.getBoolean(2);
        }
        seen.put("role", standby ? "standby" : "primary");
        seen.put("writable", !standby && !readOnly);
        return standby ? standby(s, seen, start) : primary(c, s, readOnly, seen, start);
    }

    private ProbeResult primary(Connection c, Statement s, boolean readOnly, Map<String, Object> seen, long start)
            throws SQLException {
        if (readsPositions()) {
            readPositions(c, seen);
            readReconciliation(c, seen);
        }
        try (ResultSet rs = s.executeQuery("SELECT count(*), (extract(epoch FROM max(replay_lag)) * 1000)::bigint, "
                + "max(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn))::bigint FROM pg_stat_replication")) {
            rs.next();
            seen.put("standbys", rs.getLong(1));
            putIfPresent(seen, "standby_replay_lag_ms", rs.getObject(2));
            putIfPresent(seen, "standby_lsn_distance_bytes", rs.getObject(3));
        }
        if (config.role() == ProbeConfig.Role.STANDBY) {
            return ProbeResult.down(Latency.since(start), "role primary (expected: standby)", RegionHealth.UNKNOWN_LAG, seen);
        }
        if (readOnly) {
            return ProbeResult.down(Latency.since(start), "read-only (transaction_read_only=on)", RegionHealth.UNKNOWN_LAG,
                                    seen);
        }
        if (config.heartbeat()) {
            try (PreparedStatement write = c.prepareStatement("INSERT INTO " + HEARTBEAT_TABLE
                    + " VALUES (?, clock_timestamp()) ON CONFLICT (id) DO UPDATE SET at = excluded.at")) {
                s.execute("CREATE TABLE IF NOT EXISTS " + HEARTBEAT_TABLE
                          + " (id text PRIMARY KEY, at timestamptz NOT NULL)");
                write.setString(1, HEARTBEAT_ID);
                write.executeUpdate();
                seen.put("heartbeat", "written");
            } catch (SQLException e) {
                seen.put("writable", false);
                return ProbeResult.down(Latency.since(start), "canary write failed: " + ProbeFailure.firstLine(e),
                                        RegionHealth.UNKNOWN_LAG, seen);
            }
        }
        return ProbeResult.up(Latency.since(start), "primary, writable", RegionHealth.UNKNOWN_LAG, seen);
    }

    private ProbeResult standby(Statement s, Map<String, Object> seen, long start) throws SQLException {
        boolean streaming;
        boolean caughtUp;
        Long replayAgeMs;
        try (ResultSet rs = s.executeQuery("SELECT (SELECT status FROM pg_stat_wal_receiver) = 'streaming', "
                + "pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn(), pg_is_wal_replay_paused(), "
                + "(extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::bigint")) {
            rs.next();
            streaming = rs.getBoolean(1);
            caughtUp = rs.getBoolean(2);
            seen.put("streaming", streaming);
            seen.put("replay_paused", rs.getBoolean(3));
            replayAgeMs = (Long) rs.getObject(4);
        }
        long lag;
        if (streaming && caughtUp) {
            lag = 0;
            seen.put("lag_source", "caught-up");
        } else {
            Long heartbeatAgeMs = heartbeatAge(s);
            seen.put("lag_source", heartbeatAgeMs != null ? "heartbeat" : "replay-timestamp");
            Long age = heartbeatAgeMs != null ? heartbeatAgeMs : replayAgeMs;
            lag = age == null ? RegionHealth.UNKNOWN_LAG : Math.max(0, age);
        }
        seen.put("replication_lag_ms", lag);
        if (config.role() == ProbeConfig.Role.PRIMARY) {
            return ProbeResult.down(Latency.since(start), "role standby (expected: primary)", lag, seen);
        }
        if (!streaming) {
            return ProbeResult.down(Latency.since(start), "not streaming from the primary (no WAL receiver)", lag, seen);
        }
        long maxLagMs = config.maxLag().toMillis();
        if (maxLagMs > 0 && lag == RegionHealth.UNKNOWN_LAG) {
            return ProbeResult.down(Latency.since(start), "replication lag unknown (expected: <= " + maxLagMs + "ms)", lag,
                                    seen);
        }
        if (maxLagMs > 0 && lag > maxLagMs) {
            return ProbeResult.down(Latency.since(start), "replication lag " + lag + "ms (expected: <= " + maxLagMs + "ms)",
                                    lag, seen);
        }
        return ProbeResult.up(Latency.since(start), "standby, lag " + lag + "ms", lag, seen);
    }

    /**
     * Reads the region's positions on the probe's connection. A failure (unitas's tables missing, no privilege) does
     * not fail the check, whose verdict is about the database: it is a detail of the check, and the region's lag is
     * reported unknown until the positions can be read.
     */
    private void readPositions(Connection c, Map<String, Object> seen) {
        try {
            UnitPositions read = UnitasPositions.read(c, region, clock.instant());
            positions = read;
            positionsProblem = "";
            seen.put("unitas_positions", read.written().size() + " units written, "
                                         + read.applied().values().stream().mapToInt(Map::size).sum()
                                         + " applied from other regions");
        } catch (SQLException e) {
            positions = UnitPositions.NONE;
            positionsProblem = "cannot read unitas_outbox, unitas_applied: " + ProbeFailure.firstLine(e);
            seen.put("unitas_positions", positionsProblem);
        }
    }

    /**
     * Reads the region's open siblings and reconciliation passes per unit on the probe's connection; like the
     * positions, a failure is a detail of the check, never its verdict.
     */
    private void readReconciliation(Connection c, Map<String, Object> seen) {
        try {
            UnitReconciliation read = UnitasReconciliation.read(c, clock.instant());
            reconciliation = read;
            if (read.known()) {
                seen.put("unitas_reconciliation", read.units().values().stream()
                        .mapToInt(UnitReconciliation.Unit::openSiblings).sum() + " open siblings, "
                        + read.units().values().stream().filter(u -> u.pass().isPresent()).count()
                        + " units reconciled");
            }
        } catch (SQLException e) {
            reconciliation = UnitReconciliation.NONE;
            seen.put("unitas_reconciliation", "cannot read unitas_siblings, unitas_reconcile_passes: "
                                              + ProbeFailure.firstLine(e));
        }
    }

    private static Long heartbeatAge(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT to_regclass('" + HEARTBEAT_TABLE + "') IS NOT NULL")) {
            rs.next();
            if (!rs.getBoolean(1)) {
                return null;
            }
        }
        try (ResultSet rs = s.executeQuery("SELECT (extract(epoch FROM clock_timestamp() - at) * 1000)::bigint FROM "
                                           + HEARTBEAT_TABLE + " WHERE id = '" + HEARTBEAT_ID + "'")) {
            return rs.next() ? rs.getLong(1) : null;
        }
    }

    @Override
    Connection connect(Duration timeout) throws SQLException {
        // The check's timeout bounds the whole login and every query; the target may ask a shorter connect.
        String secs = String.valueOf(seconds(timeout));
        return DriverManager.getConnection(target.url(), target.with(Map.of("connectTimeout", secs,
                "loginTimeout", secs, "socketTimeout", secs, "ApplicationName", "unitas-probe")));
    }

    /** The JDBC driver's timeouts are whole seconds: round up, at least one. */
    private static int seconds(Duration timeout) {
        return (int) Math.max(1, (timeout.toMillis() + 999) / 1000);
    }

    private static void putIfPresent(Map<String, Object> seen, String key, Object value) {
        if (value != null) {
            seen.put(key, value);
        }
    }
}
