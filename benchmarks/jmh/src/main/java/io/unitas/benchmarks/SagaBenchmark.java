package io.unitas.benchmarks;

import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.data.saga.Saga;
import io.unitas.data.saga.SagaCoordinator;
import io.unitas.data.saga.SagaRecord;
import io.unitas.data.saga.SagaSteps;
import io.unitas.data.saga.StepContext;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a saga costs on PostgreSQL: a 2-step saga whose steps each apply one write once ({@code SagaSteps.once} and an
 * update of an account), against the same two writes without a saga, and a 2-step saga whose steps do nothing (the
 * coordinator's own writes: each step's status before and after, in three commits). One coordinator
 * shared by JMH's threads ({@code -t}); one connection per thread, as a pool would lend.
 *
 * <p>Run with its own PostgreSQL: {@code benchmarks/data/saga-throughput.sh}. By hand: {@code java -jar
 * benchmarks/jmh/target/benchmarks.jar SagaBenchmark -p url=jdbc:postgresql://127.0.0.1:5432/bench?user=postgres}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(1)
public class SagaBenchmark {

    /** The JDBC URL of an empty database (tables are created by the benchmark). */
    @Param("")
    public String url;

    private final List<Connection> opened = new CopyOnWriteArrayList<>();
    private final ThreadLocal<Connection> perThread = new ThreadLocal<>();
    private SagaCoordinator twoWrites;
    private SagaCoordinator twoNothings;
    private DataSource dataSource;

    /** Creates unitas's tables and the accounts, and the coordinator. */
    @Setup(Level.Trial)
    public void setUp() throws SQLException {
        if (url.isEmpty()) {
            throw new IllegalArgumentException("url: empty (expected: -p url=jdbc:postgresql://host:port/db?user=...;"
                                               + " see benchmarks/data/saga-throughput.sh)");
        }
        dataSource = dataSource();
        Clock clock = Clock.systemUTC();
        UnitasSchema.migrate(dataSource, clock);
        try (Statement s = dataSource.getConnection().createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS bench_accounts (id VARCHAR(20) PRIMARY KEY, credit BIGINT NOT NULL)");
            s.execute("INSERT INTO bench_accounts VALUES ('a', 0), ('b', 0) ON CONFLICT DO NOTHING");
        }
        Saga writes = Saga.builder("two-writes")
                .step("debit", Duration.ofSeconds(5), ctx -> write(dataSource, ctx, "a", -1),
                      ctx -> write(dataSource, ctx, "a", 1))
                .step("credit", Duration.ofSeconds(5), ctx -> write(dataSource, ctx, "b", 1),
                      ctx -> write(dataSource, ctx, "b", -1))
                .build();
        Saga nothings = Saga.builder("two-nothings")
                .step("first", Duration.ofSeconds(5), ctx -> {}, ctx -> {})
                .step("second", Duration.ofSeconds(5), ctx -> {}, ctx -> {})
                .build();
        twoWrites = SagaCoordinator.builder().dataSource(dataSource).saga(writes).owner("bench").build();
        twoNothings = SagaCoordinator.builder().dataSource(dataSource).saga(nothings).owner("bench-noop").build();
    }

    private static void write(DataSource dataSource, StepContext ctx, String account, long amount)
            throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            SagaSteps.once(c, ctx, Clock.systemUTC(), conn -> update(conn, account, amount));
            c.commit();
            c.setAutoCommit(true);
        }
    }

    private static void update(Connection c, String account, long amount) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE bench_accounts SET credit = credit + ? WHERE id = ?")) {
            ps.setLong(1, amount);
            ps.setString(2, account);
            ps.executeUpdate();
        }
    }

    /** A 2-step saga, each step one write applied once. */
    @Benchmark
    public SagaRecord sagaOfTwoWrites() {
        return twoWrites.start("two-writes", "bench");
    }

    /** A 2-step saga whose steps do nothing: the coordinator's writes alone. */
    @Benchmark
    public SagaRecord sagaOfTwoNothings() {
        return twoNothings.start("two-nothings", "bench");
    }

    /** The same two writes, each in its own transaction, without a saga. */
    @Benchmark
    public Connection twoWritesWithoutSaga() throws SQLException {
        Connection plain = dataSource.getConnection();
        for (String account : new String[] {"a", "b"}) {
            plain.setAutoCommit(false);
            update(plain, account, account.equals("a") ? -1 : 1);
            plain.commit();
            plain.setAutoCommit(true);
        }
        return plain;
    }

    /** Closes the connections. */
    @TearDown(Level.Trial)
    public void tearDown() throws SQLException {
        for (Connection c : opened) {
            c.close();
        }
    }

    /** One connection per thread, whose close() keeps it open for the thread's next use. */
    private DataSource dataSource() {
        return new DataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                Connection c = perThread.get();
                if (c == null) {
                    Connection real = DriverManager.getConnection(url);
                    opened.add(real);
                    c = (Connection) Proxy.newProxyInstance(
                            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (p, m, args) -> {
                                if (m.getName().equals("close")) {
                                    return null;
                                }
                                try {
                                    return m.invoke(real, args);
                                } catch (InvocationTargetException e) {
                                    throw e.getCause();
                                }
                            });
                    perThread.set(c);
                }
                return c;
            }

            @Override
            public Connection getConnection(String user, String password) throws SQLException {
                return getConnection();
            }

            @Override
            public PrintWriter getLogWriter() {
                return null;
            }

            @Override
            public void setLogWriter(PrintWriter out) {}

            @Override
            public void setLoginTimeout(int seconds) {}

            @Override
            public int getLoginTimeout() {
                return 0;
            }

            @Override
            public Logger getParentLogger() throws SQLFeatureNotSupportedException {
                throw new SQLFeatureNotSupportedException();
            }

            @Override
            public <T> T unwrap(Class<T> iface) throws SQLException {
                throw new SQLException("not a wrapper");
            }

            @Override
            public boolean isWrapperFor(Class<?> iface) {
                return false;
            }
        };
    }
}
