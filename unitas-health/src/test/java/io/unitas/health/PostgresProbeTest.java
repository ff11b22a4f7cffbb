package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.unitas.core.health.ProbeResult;
import io.unitas.testkit.Ports;
import io.unitas.testkit.PostgresCluster;

class PostgresProbeTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private final PostgresCluster pg = PostgresCluster.shared();

    private static ProbeResult probe(String target, ProbeConfig.Role role, Duration maxLag, boolean heartbeat) {
        ProbeConfig config = new ProbeConfig(ProbeConfig.Kind.POSTGRES, target, role, maxLag, heartbeat,
                                             ProbeConfig.DEFAULT_STATUS, "", "");
        try (Probe probe = Probe.of(config)) {
            return probe.probe(TIMEOUT);
        }
    }

    private static ProbeResult probe(String target, ProbeConfig.Role role) {
        return probe(target, role, Duration.ZERO, false);
    }

    @Test
    void aWritablePrimaryIsUpAsPrimary() {
        ProbeResult result = probe(pg.primary().uri(), ProbeConfig.Role.PRIMARY);

        assertThat(result.up()).as(result.reason()).isTrue();
        assertThat(result.details()).containsEntry("role", "primary").containsEntry("writable", true)
                .containsEntry("standbys", 1L);
    }

    @Test
    void theSeedIncident_aReadOnlyPrimaryIsDownNamingTheSetting() {
        pg.primary().execute("ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()");
        try {
            ProbeResult result = probe(pg.primary().uri(), ProbeConfig.Role.PRIMARY);

            assertThat(result.up()).isFalse();
            assertThat(result.reason()).isEqualTo("read-only (transaction_read_only=on)");
            assertThat(result.details()).containsEntry("writable", false);
        } finally {
            pg.primary().execute("ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()");
        }
        assertThat(probe(pg.primary().uri(), ProbeConfig.Role.PRIMARY).up()).isTrue();
    }

    @Test
    void aStandbyIsUpAsStandbyAndMeasuresItsLag() {
        probe(pg.primary().uri(), ProbeConfig.Role.PRIMARY, Duration.ZERO, true);

        // Right after the heartbeat write the standby may not have replayed it yet: its lag is unknown then.
        ProbeResult result = Eventually.within(Duration.ofSeconds(5), r -> r.up(),
                () -> probe(pg.standby().uri(), ProbeConfig.Role.STANDBY, Duration.ofSeconds(5), false));

        assertThat(result.up()).as(result.reason()).isTrue();
        assertThat(result.details()).containsEntry("role", "standby").containsEntry("streaming", true)
                .containsEntry("writable", false);
        assertThat(result.replicationLagMs()).isBetween(0L, 5_000L);
    }

    @Test
    void aRoleOtherThanExpectedIsDownSayingWhichWasExpected() {
        assertThat(probe(pg.standby().uri(), ProbeConfig.Role.PRIMARY).reason())
                .isEqualTo("role standby (expected: primary)");
        assertThat(probe(pg.primary().uri(), ProbeConfig.Role.STANDBY).reason())
                .isEqualTo("role primary (expected: standby)");
    }

    @Test
    void withReplayPausedAndWritesOnThePrimary_theHeartbeatShowsTheLag() {
        probe(pg.primary().uri(), ProbeConfig.Role.PRIMARY, Duration.ZERO, true);
        pg.standby().execute("SELECT pg_wal_replay_pause()");
        try {
            probe(pg.primary().uri(), ProbeConfig.Role.PRIMARY, Duration.ZERO, true);

            // The lag is the age of the last heartbeat replayed: it passes max-lag a second after the pause.
            ProbeResult result = Eventually.within(Duration.ofSeconds(5), r -> !r.up(),
                    () -> probe(pg.standby().uri(), ProbeConfig.Role.STANDBY, Duration.ofSeconds(1), false));

            assertThat(result.up()).isFalse();
            assertThat(result.reason()).matches("replication lag \\d+ms \\(expected: <= 1000ms\\)");
            assertThat(result.details()).containsEntry("lag_source", "heartbeat").containsEntry("replay_paused", true);
        } finally {
            pg.standby().execute("SELECT pg_wal_replay_resume()");
        }
    }

    @Test
    void withReplayPaused_theLagIsMeasured_growingAboveZero_andBackToZeroOnceResumed() {
        // A database without the heartbeat table: the lag is the age of the last transaction the standby replayed.
        String db = "unitas_lag";
        if (pg.primary().queryOne("SELECT 1 FROM pg_database WHERE datname = '" + db + "'") == null) {
            pg.primary().execute("CREATE DATABASE " + db);
        }
        onPrimary(db, "CREATE TABLE IF NOT EXISTS writes (at timestamptz)", "INSERT INTO writes VALUES (now())");
        String standby = "postgresql://postgres@127.0.0.1:" + pg.standby().port() + "/" + db;
        ProbeResult caughtUp = Eventually.within(Duration.ofSeconds(10), r -> r.up() && r.replicationLagMs() == 0,
                () -> probe(standby, ProbeConfig.Role.STANDBY));
        assertThat(caughtUp.details()).as(caughtUp.reason()).containsEntry("lag_source", "caught-up");

        pg.standby().execute("SELECT pg_wal_replay_pause()");
        try {
            onPrimary(db, "INSERT INTO writes VALUES (now())");
            ProbeResult first = Eventually.within(Duration.ofSeconds(10), r -> r.replicationLagMs() > 0,
                    () -> probe(standby, ProbeConfig.Role.STANDBY));
            ProbeResult later = Eventually.within(Duration.ofSeconds(10),
                    r -> r.replicationLagMs() > first.replicationLagMs(), () -> probe(standby, ProbeConfig.Role.STANDBY));

            assertThat(first.details()).containsEntry("lag_source", "replay-timestamp")
                    .containsEntry("replay_paused", true);
            assertThat(first.replicationLagMs()).as(first.reason()).isPositive();
            assertThat(later.replicationLagMs()).as("the lag grows while replay stays paused")
                    .isGreaterThan(first.replicationLagMs());
            assertThat(later.reason()).isEqualTo("standby, lag " + later.replicationLagMs() + "ms");
        } finally {
            pg.standby().execute("SELECT pg_wal_replay_resume()");
        }
        ProbeResult resumed = Eventually.within(Duration.ofSeconds(10), r -> r.replicationLagMs() == 0,
                () -> probe(standby, ProbeConfig.Role.STANDBY));
        assertThat(resumed.replicationLagMs()).isZero();
    }

    private void onPrimary(String database, String... sql) {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + pg.primary().port() + "/"
                                                        + database, pg.primary().admin());
             Statement s = c.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aRefusedConnectionIsDownWithAClearReason() {
        ProbeResult result = probe("postgresql://postgres@127.0.0.1:" + Ports.free() + "/postgres",
                                   ProbeConfig.Role.ANY);

        assertThat(result.up()).isFalse();
        assertThat(result.reason()).matches("cannot connect to 127\\.0\\.0\\.1:\\d+: connection refused");
    }

    @Test
    void aWrongPasswordIsDownSayingAuthenticationFailed() {
        ProbeResult result = probe("postgresql://" + PostgresCluster.PASSWORD_USER + ":wrong@127.0.0.1:"
                                   + pg.primary().port() + "/postgres", ProbeConfig.Role.ANY);

        assertThat(result.up()).isFalse();
        assertThat(result.reason()).isEqualTo("password authentication failed for user \"unitas_pw\"");
    }

    @Test
    void theRightPasswordIsUp() {
        ProbeResult result = probe("postgresql://" + PostgresCluster.PASSWORD_USER + ":" + PostgresCluster.PASSWORD
                                   + "@127.0.0.1:" + pg.primary().port() + "/postgres", ProbeConfig.Role.ANY);

        assertThat(result.up()).as(result.reason()).isTrue();
    }

    @Test
    void anUnknownDatabaseIsDownNamingIt() {
        ProbeResult result = probe("postgresql://postgres@127.0.0.1:" + pg.primary().port() + "/nosuchdb",
                                   ProbeConfig.Role.ANY);

        assertThat(result.reason()).isEqualTo("database \"nosuchdb\" does not exist");
    }

}
