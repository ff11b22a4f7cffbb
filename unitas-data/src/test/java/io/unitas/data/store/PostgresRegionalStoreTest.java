package io.unitas.data.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.data.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The store contract on a real PostgreSQL ({@link PostgresServer}): the same SQL, so a PostgreSQL per region can
 * replace the embedded default. Each store gets its own schema, dropped after the test.
 */
class PostgresRegionalStoreTest extends RegionalStoreContract {

    private final List<String> schemas = new ArrayList<>();

    @Override
    RegionalStore newStore(Region region, FakeClock clock) {
        String schema = "unitas_data_test_" + UUID.randomUUID().toString().replace("-", "");
        PostgresServer.execute(PostgresServer.url(), "CREATE SCHEMA " + schema);
        schemas.add(schema);
        return RegionalStore.jdbc(region, dataSource(schema), clock);
    }

    @Test
    void replicaId_staysWithTheData_whenTheStoreIsOpenedAgain() {
        assertThat(RegionalStore.jdbc(CN, dataSource(schemas.get(0)), clock).replicaId()).isEqualTo(cn.replicaId());
    }

    @AfterEach
    void dropSchemas() {
        schemas.forEach(schema -> PostgresServer.execute(PostgresServer.url(), "DROP SCHEMA " + schema + " CASCADE"));
    }

    private static PGSimpleDataSource dataSource(String schema) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(PostgresServer.url());
        dataSource.setCurrentSchema(schema);
        return dataSource;
    }
}
