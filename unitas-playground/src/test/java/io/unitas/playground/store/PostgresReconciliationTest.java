package io.unitas.playground.store;

import io.unitas.core.Region;
import io.unitas.playground.FakeClock;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@link ReconciliationContract} on a real PostgreSQL (the shared {@link PostgresCluster}'s primary), each region's
 * store in its own schema, dropped after the test.
 */
class PostgresReconciliationTest extends ReconciliationContract {

    private static final SqlServer PG = PostgresCluster.shared().primary();
    private final List<String> schemas = new ArrayList<>();

    @Override
    RegionalStore newStore(Region region, FakeClock clock) {
        String schema = "unitas_reconcile_test_" + UUID.randomUUID().toString().replace("-", "");
        PG.execute("CREATE SCHEMA " + schema);
        schemas.add(schema);
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(PG.jdbcUrl());
        dataSource.setUser("postgres");
        dataSource.setCurrentSchema(schema);
        return RegionalStore.jdbc(region, dataSource, clock);
    }

    @AfterEach
    void dropSchemas() {
        schemas.forEach(schema -> PG.execute("DROP SCHEMA " + schema + " CASCADE"));
    }
}
