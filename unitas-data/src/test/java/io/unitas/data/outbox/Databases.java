package io.unitas.data.outbox;

import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Fresh databases for one test: on the shared PostgreSQL primary (one database per region, dropped on close) or in
 * memory on H2, the embedded default.
 */
final class Databases implements AutoCloseable {

    private static final AtomicLong H2_DATABASES = new AtomicLong();

    private final boolean postgres;
    private final List<String> created = new ArrayList<>();

    private Databases(boolean postgres) {
        this.postgres = postgres;
    }

    static Databases postgres() {
        return new Databases(true);
    }

    static Databases h2() {
        return new Databases(false);
    }

    static SqlServer server() {
        return PostgresCluster.shared().primary();
    }

    /** A new, empty database named after {@code region}. */
    PGSimpleDataSource newPostgres(String region) {
        String name = "unitas_" + region + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        server().execute("CREATE DATABASE " + name);
        created.add(name);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl("jdbc:postgresql://127.0.0.1:" + server().port() + "/" + name);
        ds.setUser("postgres");
        return ds;
    }

    /** A new, empty database of this kind. */
    DataSource newDatabase(String region) {
        if (postgres) {
            return newPostgres(region);
        }
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:unitas-outbox-" + region + "-" + H2_DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
        ds.setUser("sa");
        return ds;
    }

    @Override
    public void close() {
        created.forEach(name -> server().execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"));
    }
}
