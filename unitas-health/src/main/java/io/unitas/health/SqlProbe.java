package io.unitas.health;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.unitas.core.RegionHealth;
import io.unitas.core.health.ProbeResult;

/**
 * A probe that examines a SQL database on a fresh connection each time, so that "cannot connect" (refused,
 * wrong password, too many connections) is seen too. A failure of the connection or of any query is a down result.
 */
abstract class SqlProbe implements Probe {

    final ProbeConfig config;
    final Targets.Jdbc target;

    SqlProbe(ProbeConfig config, Targets.Jdbc target) {
        this.config = config;
        this.target = target;
    }

    @Override
    public ProbeResult probe(Duration timeout) {
        long start = Latency.start();
        Map<String, Object> seen = new LinkedHashMap<>();
        try (Connection c = connect(timeout); Statement s = c.createStatement()) {
            return examine(c, s, timeout, seen, start);
        } catch (SQLException e) {
            return ProbeResult.down(Latency.since(start), ProbeFailure.reason(e, target.address(), timeout),
                                    RegionHealth.UNKNOWN_LAG, seen);
        }
    }

    /** A connection to the target that gives up after {@code timeout}. */
    abstract Connection connect(Duration timeout) throws SQLException;

    /** The verdict on the connected database; observations go into {@code seen} as they are made. */
    abstract ProbeResult examine(Connection c, Statement s, Duration timeout, Map<String, Object> seen, long start)
            throws SQLException;
}
