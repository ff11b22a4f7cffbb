package io.unitas.data.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.data.FakeClock;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The store contract on a real PostgreSQL: the same SQL, so a PostgreSQL per region can replace the embedded
 * default. Each store gets its own schema, dropped after the test. The server is the one at
 * {@code UNITAS_TEST_POSTGRES_URL} (default {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}).
 */
class PostgresRegionalStoreTest extends RegionalStoreContract {

    private final List<String> schemas = new ArrayList<>();

    static final String URL = System.getenv().getOrDefault(
            "UNITAS_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    @Override
    RegionalStore newStore(Region region, FakeClock clock) {
        String schema = "unitas_data_test_" + UUID.randomUUID().toString().replace("-", "");
        execute("CREATE SCHEMA " + schema);
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(URL);
        dataSource.setCurrentSchema(schema);
        schemas.add(schema);
        return RegionalStore.jdbc(region, dataSource, clock);
    }

    @Test
    void replicaId_staysWithTheData_whenTheStoreIsOpenedAgain() {
        PGSimpleDataSource sameDatabase = new PGSimpleDataSource();
        sameDatabase.setUrl(URL);
        sameDatabase.setCurrentSchema(schemas.get(0));
        assertThat(RegionalStore.jdbc(CN, sameDatabase, clock).replicaId()).isEqualTo(cn.replicaId());
    }

    @AfterEach
    void dropSchemas() {
        schemas.forEach(schema -> execute("DROP SCHEMA " + schema + " CASCADE"));
    }

    static void execute(String sql) {
        PGSimpleDataSource admin = new PGSimpleDataSource();
        admin.setUrl(URL);
        try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage() + " (at " + URL + ")", e);
        }
    }
}
