package io.unitas.benchmarks;

import io.unitas.core.Region;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.Outbox;
import io.unitas.data.outbox.OutboxWrite;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What the transactional outbox adds to a service's write on PostgreSQL: one ledger entry inserted and committed,
 * without and with its change in the same transaction (goal: with ≤ 1.3× without). With it two ways: the insert and
 * its change in one statement ({@code Outbox.writeAndAppend}, one round trip), and the insert followed by
 * {@code Outbox.append} (two). One connection, as a pool would lend; the entries spread over 16 units.
 *
 * <p>Run with its own PostgreSQL (production durability: fsync and synchronous commit on), printing the ratio:
 * {@code benchmarks/data/outbox-overhead.sh}. By hand: {@code java -jar benchmarks/jmh/target/benchmarks.jar
 * OutboxWriteBenchmark -p url=jdbc:postgresql://127.0.0.1:5432/bench?user=postgres}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(1)
public class OutboxWriteBenchmark {

    private static final Region CN = Region.of("cn");
    private static final String INSERT = "INSERT INTO bench_ledger_entries (entry_id, account, amount)"
                                         + " VALUES (?, ?, ?)";

    /** The JDBC URL of an empty database to write into (tables are created and emptied by the benchmark). */
    @Param("")
    public String url;

    private Connection connection;
    private Outbox outbox;
    private long entries;

    /** Creates the service's table and unitas's, empty, and opens the one connection. */
    @Setup(Level.Trial)
    public void open() throws SQLException {
        if (url.isEmpty()) {
            throw new IllegalArgumentException("url: empty (expected: -p url=jdbc:postgresql://host:port/db?user=...;"
                                               + " benchmarks/data/outbox-overhead.sh starts a PostgreSQL and passes"
                                               + " it)");
        }
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(url);
        outbox = Outbox.jdbc(CN, dataSource, Clock.systemUTC());
        connection = dataSource.getConnection();
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS bench_ledger_entries (entry_id VARCHAR(100) PRIMARY KEY,"
                      + " account VARCHAR(100) NOT NULL, amount BIGINT NOT NULL)");
            s.execute("TRUNCATE bench_ledger_entries");
            s.execute("TRUNCATE unitas_outbox");
        }
        connection.setAutoCommit(false);
    }

    /** The service's write alone: insert one entry, commit. */
    @Benchmark
    public int writeWithoutOutbox() throws SQLException {
        int rows = insertEntry(entries++);
        connection.commit();
        return rows;
    }

    /** The same write and its change in one statement ({@code Outbox.writeAndAppend}), commit. */
    @Benchmark
    public OutboxWrite writeAndAppendInOneStatement() throws SQLException {
        long entry = entries++;
        OutboxWrite written = outbox.writeAndAppend(connection, INSERT, List.of("e-" + entry, "alice", entry),
                                                    "u-" + (entry & 15), "ledger_entry", "e-" + entry,
                                                    ("alice|" + entry).getBytes(StandardCharsets.UTF_8));
        connection.commit();
        return written;
    }

    /** The same write, then its change appended with {@code Outbox.append} in the same transaction, commit. */
    @Benchmark
    public ChangeEnvelope writeWithOutbox() throws SQLException {
        long entry = entries++;
        insertEntry(entry);
        ChangeEnvelope change = outbox.append(connection, "u-" + (entry & 15), "ledger_entry", "e-" + entry,
                                              ("alice|" + entry).getBytes(StandardCharsets.UTF_8));
        connection.commit();
        return change;
    }

    private int insertEntry(long entry) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(INSERT)) {
            ps.setString(1, "e-" + entry);
            ps.setString(2, "alice");
            ps.setLong(3, entry);
            return ps.executeUpdate();
        }
    }

    /** Closes the connection. */
    @TearDown(Level.Trial)
    public void close() throws SQLException {
        connection.close();
    }
}
