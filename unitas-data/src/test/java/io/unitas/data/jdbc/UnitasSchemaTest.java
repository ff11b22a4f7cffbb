package io.unitas.data.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.data.internal.JdbcIdempotencyStore;
import io.unitas.testkit.MutableClock;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** unitas's migrations: applied once, checked on every start, beside a service's own tables and migration tool. */
class UnitasSchemaTest {

    private static final SqlServer PG = PostgresCluster.shared().primary();

    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    private final String database = "unitas_schema_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final PGSimpleDataSource dataSource = new PGSimpleDataSource();

    UnitasSchemaTest() {
        PG.execute("CREATE DATABASE " + database);
        dataSource.setUrl("jdbc:postgresql://127.0.0.1:" + PG.port() + "/" + database);
        dataSource.setUser("postgres");
    }

    @AfterEach
    void drop() {
        PG.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }

    @Test
    void migrationsApplyOnce_andAStartAfterAppliesNothing() {
        assertThat(UnitasSchema.migrate(dataSource, clock)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(UnitasSchema.migrate(dataSource, clock)).isEmpty();
        assertThat(UnitasSchema.appliedVersions(dataSource)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
    }

    @Test
    void twoProcessesStartingAtOnce_applyEachVersionOnce() throws Exception {
        ExecutorService starts = Executors.newFixedThreadPool(2);
        try {
            CyclicBarrier together = new CyclicBarrier(2);
            List<Future<List<Integer>>> applied = List.of(
                    starts.submit(() -> {
                        together.await();
                        return UnitasSchema.migrate(dataSource, clock);
                    }),
                    starts.submit(() -> {
                        together.await();
                        return UnitasSchema.migrate(dataSource, clock);
                    }));

            assertThat(applied.get(0).get().size() + applied.get(1).get().size())
                    .isEqualTo(UnitasSchema.MIGRATIONS.size());
            assertThat(UnitasSchema.appliedVersions(dataSource)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        } finally {
            starts.shutdown();
        }
    }

    @Test
    void anAppliedMigrationThatChanged_stopsTheStart_namingTheVersionAndFile() throws Exception {
        UnitasSchema.migrate(dataSource, clock);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("UPDATE unitas_schema_history SET checksum = 'abc' WHERE version = 1");
        }

        assertThatThrownBy(() -> UnitasSchema.migrate(dataSource, clock))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("version 1 has checksum abc")
                .hasMessageContaining("V1__unitas_tables.sql");
    }

    @Test
    void theServicesOwnTablesAndMigrationHistory_areLeftAlone() throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE flyway_schema_history (installed_rank INT PRIMARY KEY, version VARCHAR(50))");
            s.execute("INSERT INTO flyway_schema_history VALUES (1, '1')");
            s.execute("CREATE TABLE ledger_entries (entry_id VARCHAR(100) PRIMARY KEY)");
        }

        UnitasSchema.migrate(dataSource, clock);

        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             var rs = s.executeQuery("SELECT COUNT(*) FROM flyway_schema_history")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(1);
        }
    }

    @Test
    void theSameFilesRunOnH2() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:unitas-schema-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");

        assertThat(UnitasSchema.migrate(h2, clock)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(UnitasSchema.migrate(h2, clock)).isEmpty();
    }

    @Test
    void theOutboxOfVersion1_mustBeDrainedBeforeVersion2_whichThenLeavesItUntouched() throws Exception {
        UnitasSchema.Script v1 = UnitasSchema.scripts().get(1);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE unitas_schema_history (version INTEGER PRIMARY KEY, script VARCHAR(200) NOT NULL,"
                      + " checksum VARCHAR(64) NOT NULL, installed_at BIGINT NOT NULL)");
            for (String statement : v1.statements()) {
                s.execute(statement);
            }
            s.execute("INSERT INTO unitas_schema_history VALUES (1, '" + v1.name() + "', '" + v1.checksum() + "', 0)");
            s.execute("INSERT INTO unitas_outbox VALUES ('u-1', 7, 'ledger_entry', 'e-7', '\\x01', 0)");
        }

        assertThatThrownBy(() -> UnitasSchema.migrate(dataSource, clock))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("V2__outbox_positions.sql")
                .hasMessageContaining("unitas_v2_outbox_drained");
        assertThat(UnitasSchema.appliedVersions(dataSource)).as("rolled back whole").containsExactly(1);

        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM unitas_outbox"); // every region applied it; the shipper trimmed it
        }
        assertThat(UnitasSchema.migrate(dataSource, clock)).containsExactly(2, 3, 4, 5, 6, 7, 8);
    }

    @Test
    void version3_keepsTheIdempotencyRecordsOfBefore_asClaimsWithoutToken() throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE unitas_schema_history (version INTEGER PRIMARY KEY, script VARCHAR(200) NOT NULL,"
                      + " checksum VARCHAR(64) NOT NULL, installed_at BIGINT NOT NULL)");
            for (int version = 1; version <= 2; version++) {
                UnitasSchema.Script script = UnitasSchema.scripts().get(version);
                for (String statement : script.statements()) {
                    s.execute(statement);
                }
                s.execute("INSERT INTO unitas_schema_history VALUES (" + version + ", '" + script.name() + "', '"
                          + script.checksum() + "', 0)");
            }
            long expires = clock.millis() + 3_600_000;
            s.execute("INSERT INTO unitas_idempotency VALUES ('k-old', 'alice', 'hash-a', NULL, NULL, 0, " + expires
                      + ")");
        }

        JdbcIdempotencyStore store = new JdbcIdempotencyStore(io.unitas.core.Region.of("cn"), dataSource, clock);

        assertThat(UnitasSchema.appliedVersions(dataSource)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(store.idempotencyRecord("k-old").value().claimToken()).isEmpty();
        assertThat(store.claim(io.unitas.data.store.IdempotencyRecord.inFlight(
                "k-old", "alice", "hash-a", clock.instant(), clock.instant().plusSeconds(3600), "token-1")).status())
                .as("held by a claim of before: still in flight")
                .isEqualTo(io.unitas.data.store.StoreResult.Status.CONFLICT);
    }

    @Test
    void scriptsSplitIntoStatements_withoutTheirComments() {
        List<String> statements = UnitasSchema.scripts().get(1).statements();

        assertThat(statements).hasSize(4);
        assertThat(statements).allSatisfy(s -> assertThat(s).startsWith("CREATE TABLE unitas_"));
    }
}
