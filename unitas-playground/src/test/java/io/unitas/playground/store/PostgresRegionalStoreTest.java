package io.unitas.playground.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.playground.FakeClock;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The store contract on a real PostgreSQL (the shared {@link PostgresCluster}'s primary): the same SQL, so a
 * PostgreSQL per region can replace the embedded default. Each store gets its own schema, dropped after the test.
 */
class PostgresRegionalStoreTest extends RegionalStoreContract {

    private static final SqlServer PG = PostgresCluster.shared().primary();
    private final List<String> schemas = new ArrayList<>();

    @Override
    RegionalStore newStore(Region region, FakeClock clock) {
        String schema = "unitas_data_test_" + UUID.randomUUID().toString().replace("-", "");
        PG.execute("CREATE SCHEMA " + schema);
        schemas.add(schema);
        return RegionalStore.jdbc(region, dataSource(schema), clock);
    }

    @Test
    void replicaId_staysWithTheData_whenTheStoreIsOpenedAgain() {
        assertThat(RegionalStore.jdbc(CN, dataSource(schemas.get(0)), clock).replicaId()).isEqualTo(cn.replicaId());
    }

    @Test
    void aTrimmedLogCountsOnFromItsNewestChange_whenTheStoreIsOpenedAgain() {
        cn.putAccount(alice());
        cn.putAccount(new Account("bob", "u-cn-2", CN, "Bob", clock.instant()));
        cn.trim(2);

        try (RegionalStore reopened = RegionalStore.jdbc(CN, dataSource(schemas.get(0)), clock)) {
            reopened.putAccount(new Account("carol", "u-cn-3", CN, "Carol", clock.instant()));

            assertThat(reopened.changesSince(0, 10).value()).extracting(Change::seq).containsExactly(2L, 3L);
        }
    }

    @AfterEach
    void dropSchemas() {
        schemas.forEach(schema -> PG.execute("DROP SCHEMA " + schema + " CASCADE"));
    }

    private static PGSimpleDataSource dataSource(String schema) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(PG.jdbcUrl());
        dataSource.setUser("postgres");
        dataSource.setCurrentSchema(schema);
        return dataSource;
    }
}
