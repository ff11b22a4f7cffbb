package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.testkit.Ports;
import io.unitas.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGConnectionPoolDataSource;

/**
 * {@link PostgresPool} across its server's crash and restart: after one failed statement every connection it lends
 * works, where H2's pool alone lends each of its broken connections again (one failure in use, one more when lent).
 */
class PostgresPoolTest {

    private static final int MAX = 3;

    @Test
    void afterARestart_oneFailure_thenEveryConnectionWorks_unlikeThePlainPool() {
        try (PostgresServer server = PostgresServer.start(Ports.free())) {
            JdbcConnectionPool renewing = PostgresPool.create(server.jdbcUrl(), "pool-test", MAX);
            PGConnectionPoolDataSource source = new PGConnectionPoolDataSource();
            source.setUrl(server.jdbcUrl());
            source.setUser("postgres");
            JdbcConnectionPool plain = JdbcConnectionPool.create(source);
            plain.setMaxConnections(MAX);
            try {
                fill(renewing);
                fill(plain);
                server.kill();
                server.restart();

                assertThat(failures(renewing, 20)).as("the first statement on a connection the crash broke")
                        .isEqualTo(1);
                assertThat(failures(renewing, 20)).isZero();
                assertThat(failures(plain, 20)).as("H2's pool alone: every broken connection fails, in use and lent")
                        .isGreaterThanOrEqualTo(MAX);
                assertThat(renewing.getActiveConnections()).isZero();
            } finally {
                renewing.dispose();
                plain.dispose();
            }
        }
    }

    /** Borrows {@link #MAX} connections at once and returns them: the pool keeps them, idle. */
    private static void fill(DataSource pool) {
        List<Connection> held = new ArrayList<>();
        try {
            for (int i = 0; i < MAX; i++) {
                Connection c = pool.getConnection();
                held.add(c);
                select(c);
            }
            for (Connection c : held) {
                c.close();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** How many of {@code times} borrows, each one statement, failed. */
    private static int failures(DataSource pool, int times) {
        int failed = 0;
        for (int i = 0; i < times; i++) {
            try (Connection c = pool.getConnection()) {
                select(c);
            } catch (SQLException e) {
                failed++;
            }
        }
        return failed;
    }

    private static void select(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            rs.next();
        }
    }
}
