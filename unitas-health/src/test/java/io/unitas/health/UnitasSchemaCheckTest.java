package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import io.unitas.config.HealthReportJson;
import io.unitas.core.Region;
import io.unitas.core.health.HealthReport;
import io.unitas.core.health.UnitPositions;
import io.unitas.core.health.UnitReconciliation;
import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.data.outbox.JdbcUnitPositions;
import io.unitas.testkit.MutableClock;
import io.unitas.testkit.PostgresCluster;

/**
 * The {@code postgres} check with {@code unitas-schema: true}, on a real PostgreSQL database migrated to unitas's
 * tables: the agent reports, beside the check's verdict, what the region has written and applied per unit.
 */
class UnitasSchemaCheckTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");

    private final PostgresCluster pg = PostgresCluster.shared();
    private final MutableClock clock = new MutableClock(T0);
    private String database;

    @BeforeEach
    void createDatabase() {
        database = "unitas_health_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        pg.primary().execute("CREATE DATABASE " + database);
    }

    @AfterEach
    void dropDatabase() {
        pg.primary().execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }

    private String url() {
        return "jdbc:postgresql://127.0.0.1:" + pg.primary().port() + "/" + database;
    }

    private void sql(String... statements) {
        try (Connection c = DriverManager.getConnection(url(), pg.primary().admin());
             Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void migrate() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(url());
        ds.setUser("postgres");
        UnitasSchema.migrate(ds, clock);
    }

    private HealthAgent agent(String options) {
        return HealthAgent.start(HealthConfig.parse("health.yaml", """
                region: cn
                defaults: {interval: 100ms, timeout: 2s}
                checks:
                  - {name: pg, kind: postgres, target: 'postgresql://postgres@127.0.0.1:%d/%s'%s}
                """.formatted(pg.primary().port(), database, options)), clock);
    }

    private static HealthReport probed(HealthAgent agent) {
        return Eventually.within(Duration.ofSeconds(20),
                r -> !r.checks().get("pg").reason().equals("no result yet"), agent::current);
    }

    /** Two changes of u-sh (at T0 and T0 + 300 ms) and one of u-bj kept; eu's u-de applied through 1000000000007. */
    private void writeAndApply() {
        sql("INSERT INTO unitas_outbox VALUES (nextval('unitas_outbox_positions'), 'u-sh', 'wallet', 'k1', '\\x01', "
            + T0.toEpochMilli() + ")",
            "INSERT INTO unitas_outbox VALUES (nextval('unitas_outbox_positions'), 'u-bj', 'wallet', 'k2', '\\x01', "
            + (T0.toEpochMilli() + 100) + ")",
            "INSERT INTO unitas_outbox VALUES (nextval('unitas_outbox_positions'), 'u-sh', 'wallet', 'k3', '\\x01', "
            + (T0.toEpochMilli() + 300) + ")",
            "INSERT INTO unitas_applied VALUES ('eu', 'u-de', 1000000000007, 0), ('us', 'u-ny', 3, 0)");
    }

    @Test
    void reportsWhatTheRegionWroteAndApplied_perUnit() {
        migrate();
        writeAndApply();
        clock.advance(Duration.ofSeconds(1));
        try (HealthAgent agent = agent(", unitas-schema: true")) {
            HealthReport report = probed(agent);

            assertThat(report.healthy()).isTrue();
            UnitPositions p = report.positions();
            assertThat(p.known()).isTrue();
            assertThat(p.readAt()).isEqualTo(T0.plusSeconds(1));
            // positions start at 1000000000000 (V2__outbox_positions.sql)
            assertThat(p.written()).isEqualTo(Map.of(
                    "u-sh", new UnitPositions.Written(2, 1000000000000L, T0, 1000000000002L, T0.plusMillis(300)),
                    "u-bj", new UnitPositions.Written(1, 1000000000001L, T0.plusMillis(100), 1000000000001L,
                                                      T0.plusMillis(100))));
            assertThat(p.applied()).isEqualTo(Map.of(Region.of("eu"), Map.of("u-de", 1000000000007L),
                                                     Region.of("us"), Map.of("u-ny", 3L)));
            assertThat(report.checks().get("pg").details()).containsEntry("unitas_positions",
                    "2 units written, 2 applied from other regions");
            assertThat(HealthReportJson.write(report)).contains("\"positions\":{\"read_at\":\"2026-11-30T14:00:01Z\"");
        }
    }

    @Test
    void reportsEachUnitsOpenSiblingsAndLastReconciliationPass() {
        migrate();
        sql("INSERT INTO unitas_siblings VALUES ('address', 'alice', 'u-de', 2, 'a | b', " + T0.toEpochMilli() + ", 0),"
            + " ('address', 'bob', 'u-de', 3, 'c | d | e', " + (T0.toEpochMilli() + 500) + ", 0),"
            + " ('address', 'li', 'u-sh', 2, 'f | g', " + (T0.toEpochMilli() + 700) + ", 0)",
            "INSERT INTO unitas_reconcile_passes VALUES ('u-de', 'eu', " + T0.toEpochMilli() + ", 10000, 2048, 3, 1,"
            + " 5, NULL), ('u-ny', 'us', " + T0.toEpochMilli() + ", 10000, 2048, 0, 0, 0, 'us: connection refused')");
        clock.advance(Duration.ofSeconds(1));
        try (HealthAgent agent = agent(", unitas-schema: true")) {
            HealthReport report = probed(agent);

            assertThat(report.reconciliation()).isEqualTo(UnitReconciliation.of(T0.plusSeconds(1), Map.of(
                    "u-de", new UnitReconciliation.Unit(2, Optional.of(T0), Optional.of(new UnitReconciliation.Pass(
                            Region.of("eu"), T0, Duration.ofSeconds(10), 3, 1, 5, Optional.empty()))),
                    "u-sh", new UnitReconciliation.Unit(1, Optional.of(T0.plusMillis(700)), Optional.empty()),
                    "u-ny", new UnitReconciliation.Unit(0, Optional.empty(), Optional.of(new UnitReconciliation.Pass(
                            Region.of("us"), T0, Duration.ofSeconds(10), 0, 0, 0,
                            Optional.of("us: connection refused")))))));
            assertThat(report.reconciliation().units().keySet()).containsExactly("u-de", "u-ny", "u-sh");
            assertThat(report.checks().get("pg").details()).containsEntry("unitas_reconciliation",
                    "3 open siblings, 2 units reconciled");
            assertThat(HealthReportJson.write(report)).contains("\"reconciliation\":{\"read_at\":");
        }
        try (HealthAgent agent = agent("")) {
            assertThat(probed(agent).reconciliation()).as("without the option").isEqualTo(UnitReconciliation.NONE);
        }
    }

    @Test
    void aServiceReportsItsOwnPositions_throughTheDataLayersReader() {
        migrate();
        writeAndApply();
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(url());
        ds.setUser("postgres");
        JdbcUnitPositions positions = new JdbcUnitPositions(Region.of("cn"), ds, clock);
        HealthConfig config = HealthConfig.parse("health.yaml", "region: cn\nchecks:\n"
                + "  - {name: pg, kind: postgres, target: 'postgresql://postgres@127.0.0.1:" + pg.primary().port()
                + "/" + database + "'}\n");
        DefaultHealthAgent agent = new DefaultHealthAgent(config, clock, UnitLagSource.positions(positions::read));
        try {
            assertThat(agent.current().positions()).isEqualTo(positions.read());
            assertThat(agent.current().positions().written()).containsOnlyKeys("u-sh", "u-bj");
        } finally {
            agent.close();
        }
    }

    @Test
    void withoutTheOption_noPositionsAreRead() {
        migrate();
        writeAndApply();
        try (HealthAgent agent = agent("")) {
            assertThat(probed(agent).positions()).isEqualTo(UnitPositions.NONE);
        }
    }

    @Test
    void aDatabaseWithoutUnitasTables_keepsTheCheckUp_andSaysWhyPositionsAreUnknown() {
        try (HealthAgent agent = agent(", unitas-schema: true")) {
            HealthReport report = probed(agent);

            assertThat(report.checks().get("pg").up()).isTrue();
            assertThat(report.positions().known()).isFalse();
            assertThat(report.reconciliation().known()).as("neither table").isFalse();
            assertThat(report.checks().get("pg").details()).containsEntry("unitas_positions",
                    "cannot read unitas_outbox, unitas_applied: relation \"unitas_outbox\" does not exist");
        }
    }

    @Test
    void aStandbyCannotReadPositions_refusedNamingTheOption() {
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> HealthConfig.parse("health.yaml", """
                region: cn
                checks:
                  - {name: pg, kind: postgres, target: 'postgresql://postgres@127.0.0.1:5432/x', role: standby,
                     unitas-schema: true}
                """))).hasMessageContaining("checks[0].unitas-schema: true on a standby (expected: role primary or "
                                            + "any; the region's positions are read where it writes them)");
    }

    @Test
    void theAgentsQueriesAreTheDataLayers() {
        assertThat(List.of(UnitasPositions.WRITTEN, UnitasPositions.APPLIED))
                .containsExactly(JdbcUnitPositions.WRITTEN, JdbcUnitPositions.APPLIED);
    }
}
