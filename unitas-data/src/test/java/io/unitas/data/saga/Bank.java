package io.unitas.data.saga;

import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Two regions' stores on the testkit's PostgreSQL, one database each (cn homes alice, eu homes bob), and the
 * coordinator's own database; the transfer saga between them: debit in the payer's home, credit in the payee's,
 * each applied once through {@link SagaSteps#once}. Dropped on close.
 */
final class Bank implements AutoCloseable {

    static final Duration STEP_TIMEOUT = Duration.ofSeconds(20);

    private final List<String> created = new ArrayList<>();
    final DataSource sagas;
    final DataSource cn;
    final DataSource eu;
    private final Map<String, DataSource> homes;
    private final Clock clock;
    final AtomicInteger debits = new AtomicInteger();
    final AtomicInteger credits = new AtomicInteger();
    volatile boolean refundFails;

    Bank(Clock clock) {
        this.clock = clock;
        sagas = database("sagas");
        cn = database("cn");
        eu = database("eu");
        for (DataSource ds : List.of(sagas, cn, eu)) {
            UnitasSchema.migrate(ds, clock);
        }
        execute(cn, "CREATE TABLE accounts (id VARCHAR(20) PRIMARY KEY, credit BIGINT NOT NULL,"
                    + " closed BOOLEAN NOT NULL)");
        execute(eu, "CREATE TABLE accounts (id VARCHAR(20) PRIMARY KEY, credit BIGINT NOT NULL,"
                    + " closed BOOLEAN NOT NULL)");
        execute(cn, "INSERT INTO accounts VALUES ('alice', 100, FALSE)");
        execute(eu, "INSERT INTO accounts VALUES ('bob', 100, FALSE), ('carol', 100, TRUE)");
        homes = Map.of("alice", cn, "bob", eu, "carol", eu);
    }

    private static SqlServer server() {
        return PostgresCluster.shared().primary();
    }

    private DataSource database(String region) {
        String name = "unitas_saga_" + region + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        server().execute("CREATE DATABASE " + name);
        created.add(name);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl("jdbc:postgresql://127.0.0.1:" + server().port() + "/" + name);
        ds.setUser("postgres");
        return ds;
    }

    /** The transfer: payload "from,to,amount". Refused when the payer lacks credit or the payee's account is closed. */
    Saga transfer() {
        return Saga.builder("transfer")
                .step("debit", STEP_TIMEOUT,
                      ctx -> apply(ctx, 0, (c, amount, account) -> {
                          debits.incrementAndGet();
                          if (credit(c, account) < amount) {
                              throw new StepRefused(account + ": credit below " + amount);
                          }
                          add(c, account, -amount);
                      }),
                      ctx -> apply(ctx, 0, (c, amount, account) -> {
                          if (refundFails) {
                              throw new SQLException("refund: the store refuses writes");
                          }
                          add(c, account, amount);
                      }))
                .step("credit", STEP_TIMEOUT,
                      ctx -> apply(ctx, 1, (c, amount, account) -> {
                          credits.incrementAndGet();
                          if (closed(c, account)) {
                              throw new StepRefused(account + ": account closed");
                          }
                          add(c, account, amount);
                      }),
                      ctx -> apply(ctx, 1, (c, amount, account) -> add(c, account, -amount)))
                .build();
    }

    interface Work {
        void run(Connection c, long amount, String account) throws SQLException;
    }

    /** Runs {@code work} once in the home of the payload's account number {@code which} (0 payer, 1 payee). */
    private void apply(StepContext ctx, int which, Work work) throws SQLException {
        String[] parts = ctx.payload().split(",");
        String account = parts[which];
        long amount = Long.parseLong(parts[2]);
        try (Connection c = homes.get(account).getConnection()) {
            c.setAutoCommit(false);
            try {
                SagaSteps.once(c, ctx, clock, conn -> work.run(conn, amount, account));
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private static long credit(Connection c, String account) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT credit FROM accounts WHERE id = ? FOR UPDATE")) {
            ps.setString(1, account);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static boolean closed(Connection c, String account) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT closed FROM accounts WHERE id = ?")) {
            ps.setString(1, account);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static void add(Connection c, String account, long amount) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE accounts SET credit = credit + ? WHERE id = ?")) {
            ps.setLong(1, amount);
            ps.setString(2, account);
            ps.executeUpdate();
        }
    }

    /** The credit of {@code account} in its home. */
    long credit(String account) {
        return queryLong(homes.get(account), "SELECT credit FROM accounts WHERE id = '" + account + "'");
    }

    /** The credit of every account in both regions. */
    long total() {
        return queryLong(cn, "SELECT SUM(credit) FROM accounts") + queryLong(eu, "SELECT SUM(credit) FROM accounts");
    }

    static long queryLong(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    static void execute(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        created.forEach(name -> server().execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"));
    }
}
