package io.unitas.data.remote;

import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.postgresql.ds.PGSimpleDataSource;

import io.unitas.data.IdempotencyStore;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;

/** The contract on cn's own store in a real PostgreSQL (the testkit's), in a database of its own per case. */
class PostgresIdempotencyStoreContractTest extends IdempotencyStoreContract {

    private static final SqlServer PG = PostgresCluster.shared().primary();

    private final String database = "unitas_idem_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final IdempotencyStore store;

    PostgresIdempotencyStoreContractTest() {
        PG.execute("CREATE DATABASE " + database);
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl("jdbc:postgresql://127.0.0.1:" + PG.port() + "/" + database);
        dataSource.setUser("postgres");
        store = IdempotencyStore.jdbc(CN, dataSource, clock);
    }

    @AfterEach
    void drop() {
        PG.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }

    @Override
    IdempotencyStore store() {
        return store;
    }
}
