package io.unitas.data.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.unitas.core.Region;
import io.unitas.testkit.MutableClock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Outbox#writeAndAppend}: the service's own write statement and its change, with the contract of
 * {@link Outbox#append} after the write: both commit or neither, no row written means no change, and an open
 * transaction's position holds the read. On PostgreSQL ({@link PostgresWriteAndAppendTest}) both are one statement,
 * one round trip; on H2 ({@link EmbeddedWriteAndAppendTest}), the embedded default, the write and then an append.
 */
abstract class WriteAndAppendContract {

    private static final Region CN = Region.of("cn");
    private static final String INSERT = "INSERT INTO ledger_entries (entry_id, account, amount) VALUES (?, ?, ?)";

    private final Databases databases;
    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    private final DataSource db;
    private final Outbox outbox;

    WriteAndAppendContract(Databases databases) {
        this.databases = databases;
        this.db = databases.newDatabase("cn");
        Ledger.createSchema(db);
        this.outbox = Outbox.jdbc(CN, db, clock);
    }

    /** Whether the databases are PostgreSQL's. */
    abstract boolean postgres();

    @AfterEach
    void close() {
        databases.close();
    }

    @Test
    void theWriteAndItsChange_commitTogether() throws SQLException {
        OutboxWrite written;
        try (Connection tx = db.getConnection()) {
            tx.setAutoCommit(false);
            written = outbox.writeAndAppend(tx, INSERT, List.of("e-1", "alice", 10L), "u-1", Ledger.ENTRY, "e-1",
                                            bytes("alice|10"));
            tx.commit();
        }

        assertThat(written.rows()).isEqualTo(1);
        ChangeEnvelope change = written.change().orElseThrow();
        assertThat(change.origin()).isEqualTo(CN);
        assertThat(change.writtenAt()).isEqualTo(clock.instant());
        assertThat(Ledger.entries(db)).containsExactly("e-1");
        assertThat(outbox.after(0, 10)).containsExactly(change);
        assertThat(new String(outbox.after(0, 10).get(0).payload(), StandardCharsets.UTF_8)).isEqualTo("alice|10");
    }

    @Test
    void onPostgres_theWriteAndTheAppend_areOneStatement() throws SQLException {
        AtomicInteger statements = new AtomicInteger();
        try (Connection tx = counting(db.getConnection(), statements)) {
            tx.setAutoCommit(false);
            outbox.writeAndAppend(tx, INSERT, List.of("e-1", "alice", 10L), "u-1", Ledger.ENTRY, "e-1",
                                  bytes("alice|10"));
            tx.commit();
        }

        assertThat(statements).as("statements prepared for the write and its change")
                .hasValue(postgres() ? 1 : 4); // H2: the write, then the append's lock row, position and row
    }

    @Test
    void aRolledBackWrite_leavesNeitherTheRowNorTheChange() throws SQLException {
        try (Connection tx = db.getConnection()) {
            tx.setAutoCommit(false);
            outbox.writeAndAppend(tx, INSERT, List.of("e-1", "alice", 10L), "u-1", Ledger.ENTRY, "e-1",
                                  bytes("alice|10"));
            tx.rollback();
        }

        assertThat(Ledger.entries(db)).isEmpty();
        assertThat(outbox.lastSequences()).isEmpty();
    }

    @Test
    void aWriteThatMatchesNoRow_appendsNoChange() throws SQLException {
        try (Connection tx = db.getConnection()) {
            tx.setAutoCommit(false);
            OutboxWrite written = outbox.writeAndAppend(
                    tx, "UPDATE ledger_entries SET amount = ? WHERE entry_id = ?", List.of(20L, "e-none"), "u-1",
                    Ledger.ENTRY, "e-none", bytes("alice|20"));
            tx.commit();

            assertThat(written).isEqualTo(new OutboxWrite(0, java.util.Optional.empty()));
        }
        assertThat(outbox.lastSequences()).isEmpty();
    }

    @Test
    void onPostgres_anInsertThatFindsItsRowThere_appendsNoChange() throws SQLException {
        assumeTrue(postgres(), "ON CONFLICT is PostgreSQL's");
        Ledger.execute(db, "INSERT INTO ledger_entries VALUES ('e-1', 'alice', 1)");
        try (Connection tx = db.getConnection()) {
            tx.setAutoCommit(false);
            OutboxWrite written = outbox.writeAndAppend(tx, INSERT + " ON CONFLICT (entry_id) DO NOTHING",
                                                        List.of("e-1", "alice", 10L), "u-1", Ledger.ENTRY, "e-1",
                                                        bytes("alice|10"));
            tx.commit();

            assertThat(written.rows()).isZero();
            assertThat(written.change()).isEmpty();
        }
        assertThat(outbox.lastSequences()).isEmpty();
    }

    @Test
    void aWriteOfSeveralRows_appendsOneChange_andNullParametersAreSqlNull() throws SQLException {
        Ledger.execute(db, "INSERT INTO ledger_entries VALUES ('e-1', 'alice', 1), ('e-2', 'alice', 2),"
                           + " ('e-3', 'bob', 3)");
        try (Connection tx = db.getConnection()) {
            tx.setAutoCommit(false);
            OutboxWrite written = outbox.writeAndAppend(
                    tx, "UPDATE ledger_entries SET amount = amount + ? WHERE account = ? AND entry_id <> COALESCE(?,"
                        + " '')", Arrays.asList(100L, "alice", null), "u-1", "account", "alice",
                    bytes("alice|+100"));
            tx.commit();

            assertThat(written.rows()).isEqualTo(2);
            assertThat(outbox.after(0, 10)).containsExactly(written.change().orElseThrow());
        }
        assertThat(Ledger.count(db, "SELECT SUM(amount) FROM ledger_entries")).isEqualTo(206);
    }

    @Test
    void aWriteTheDatabaseRefuses_throws_andAppendsNothing() throws SQLException {
        Ledger.execute(db, "INSERT INTO ledger_entries VALUES ('e-1', 'alice', 1)");
        try (Connection tx = db.getConnection()) {
            tx.setAutoCommit(false);
            assertThatThrownBy(() -> outbox.writeAndAppend(tx, INSERT, List.of("e-1", "alice", 10L), "u-1",
                                                           Ledger.ENTRY, "e-1", bytes("alice|10")))
                    .isInstanceOf(SQLException.class);
            tx.rollback();
        }
        assertThat(outbox.lastSequences()).isEmpty();
    }

    @Test
    void anOpenWrite_holdsTheRead_untilItCommits_evenWhenALaterOneCommittedFirst() throws SQLException {
        assumeTrue(postgres(), "on H2 appends commit in position order: the second would wait for the first");
        try (Connection first = db.getConnection(); Connection second = db.getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            // the first transaction's first statement: it has no transaction id before it
            OutboxWrite early = outbox.writeAndAppend(first, INSERT, List.of("e-1", "alice", 1L), "u-1",
                                                      Ledger.ENTRY, "e-1", bytes("alice|1"));
            OutboxWrite late = outbox.writeAndAppend(second, INSERT, List.of("e-2", "bob", 2L), "u-2",
                                                     Ledger.ENTRY, "e-2", bytes("bob|2"));
            second.commit();
            assertThat(late.change().orElseThrow().sequence()).isGreaterThan(early.change().orElseThrow().sequence());

            assertThat(outbox.after(0, 10)).as("e-2 committed, but e-1's lower position may still commit").isEmpty();

            first.commit();

            assertThat(outbox.after(0, 10)).extracting(ChangeEnvelope::key).containsExactly("e-1", "e-2");
        }
    }

    @Test
    void twoWritesOfOneEntity_takeTheirPositionsInTheOrderTheyCommit() throws Exception {
        assumeTrue(postgres(), "on H2 appends commit in position order by the lock row");
        Ledger.execute(db, "INSERT INTO ledger_entries VALUES ('e-1', 'alice', 1)");
        String update = "UPDATE ledger_entries SET amount = ? WHERE entry_id = ?";
        ExecutorService second = Executors.newSingleThreadExecutor();
        try (Connection first = db.getConnection(); Connection other = db.getConnection()) {
            first.setAutoCommit(false);
            other.setAutoCommit(false);
            try (var ps = first.prepareStatement("UPDATE ledger_entries SET amount = 2 WHERE entry_id = 'e-1'")) {
                ps.executeUpdate(); // the first holds the entry's row lock
            }
            Future<OutboxWrite> blocked = second.submit(() -> {
                OutboxWrite w = outbox.writeAndAppend(other, update, List.of(3L, "e-1"), "u-1", Ledger.ENTRY, "e-1",
                                                      bytes("alice|3"));
                other.commit();
                return w;
            });
            awaitALockWait();
            // the second waits for the row: its position must come after the first's, taken now
            ChangeEnvelope firstChange = outbox.append(first, "u-1", Ledger.ENTRY, "e-1", bytes("alice|2"));
            first.commit();
            ChangeEnvelope secondChange = blocked.get(20, TimeUnit.SECONDS).change().orElseThrow();

            assertThat(secondChange.sequence()).as("the later write's change is later in the unit's stream")
                    .isGreaterThan(firstChange.sequence());
            assertThat(Ledger.count(db, "SELECT amount FROM ledger_entries")).isEqualTo(3);
        } finally {
            second.shutdownNow();
        }
    }

    /** Waits until a statement of this database waits for a lock (a condition, checked every 10 ms, for 20 s). */
    private void awaitALockWait() {
        for (int i = 0; i < 2_000; i++) {
            if (Ledger.count(db, "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database()"
                                 + " AND wait_event_type = 'Lock'") > 0) {
                return;
            }
            LockSupport.parkNanos(10_000_000);
        }
        throw new AssertionError("no statement waits for a lock in 20 s");
    }

    @Test
    void aStatementThatIsNotOneWriteWithoutReturning_isRefusedByName() throws SQLException {
        try (Connection tx = db.getConnection()) {
            tx.setAutoCommit(false);
            assertThatThrownBy(() -> outbox.writeAndAppend(tx, "SELECT 1", List.of(), "u-1", Ledger.ENTRY, "e-1",
                                                           bytes("x")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("sql: 'SELECT 1' (expected: one INSERT, UPDATE or DELETE)");
            assertThatThrownBy(() -> outbox.writeAndAppend(tx, INSERT + " RETURNING entry_id", List.of("e-1", "a", 1L),
                                                           "u-1", Ledger.ENTRY, "e-1", bytes("x")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("(expected: no RETURNING clause; the outbox adds its own)");
            assertThatThrownBy(() -> outbox.writeAndAppend(tx, "DELETE FROM ledger_entries; DELETE FROM unitas_outbox",
                                                           List.of(), "u-1", Ledger.ENTRY, "e-1", bytes("x")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("(expected: one statement, no ';')");
            tx.rollback();
        }
        try (Connection auto = db.getConnection()) {
            assertThatThrownBy(() -> outbox.writeAndAppend(auto, INSERT, List.of("e-1", "alice", 1L), "u-1",
                                                           Ledger.ENTRY, "e-1", bytes("x")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("auto-commit");
        }
        assertThat(Ledger.entries(db)).isEmpty();
        assertThat(outbox.lastSequences()).isEmpty();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code connection}, counting the statements prepared or created on it. */
    private static Connection counting(Connection connection, AtomicInteger statements) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") || method.getName().equals("createStatement")
                        || method.getName().equals("prepareCall")) {
                        statements.incrementAndGet();
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
