package io.unitas.data.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * {@link WriteAndAppendContract} on a real PostgreSQL: the write and its change in one statement; and what only
 * PostgreSQL shows (ON CONFLICT, positions taken out of commit order).
 */
class PostgresWriteAndAppendTest extends WriteAndAppendContract {

    PostgresWriteAndAppendTest() {
        super(Databases.postgres());
    }

    @Override
    boolean postgres() {
        return true;
    }

    @Test
    void anInsertThatFindsItsRowThere_appendsNoChange() throws SQLException {
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
    void anOpenWrite_holdsTheRead_untilItCommits_evenWhenALaterOneCommittedFirst() throws SQLException {
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
}
