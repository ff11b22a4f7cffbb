package io.unitas.data.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.concurrent.atomic.AtomicInteger;
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

    static final Region CN = Region.of("cn");
    static final String INSERT = "INSERT INTO ledger_entries (entry_id, account, amount) VALUES (?, ?, ?)";

    private final Databases databases;
    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    final DataSource db;
    final Outbox outbox;

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

    static byte[] bytes(String s) {
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
