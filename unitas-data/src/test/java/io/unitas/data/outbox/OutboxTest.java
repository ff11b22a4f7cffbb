package io.unitas.data.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.Region;
import io.unitas.testkit.MutableClock;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The transactional outbox on a real PostgreSQL: the service's write and its change commit or vanish together, and a
 * read for shipping never passes a position an open transaction may still commit.
 */
class OutboxTest {

    private static final Region CN = Region.of("cn");

    private final Databases databases = Databases.postgres();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    private final DataSource db = databases.newDatabase("cn");
    private final Outbox outbox;
    private final Ledger ledger;

    OutboxTest() {
        Ledger.createSchema(db);
        outbox = Outbox.jdbc(CN, db, clock);
        ledger = new Ledger(db, outbox);
    }

    @AfterEach
    void close() {
        databases.close();
    }

    @Test
    void theWriteAndItsChange_commitTogether() {
        ChangeEnvelope change = ledger.record("u-1", "e-1", "alice", 10);

        assertThat(Ledger.entries(db)).containsExactly("e-1");
        assertThat(outbox.after("u-1", 0, 10)).containsExactly(change);
        assertThat(outbox.after(0, 10)).containsExactly(change);
        assertThat(change.previous()).as("not chained yet: the shipper chains").isZero();
        assertThat(change.origin()).isEqualTo(CN);
        assertThat(change.writtenAt()).isEqualTo(clock.instant());
    }

    @Test
    void aRolledBackWrite_leavesNeitherTheRowNorTheChange_andItsPositionIsNotWaitedFor() {
        ledger.recordThenRollBack("u-1", "e-1", "alice", 10);

        assertThat(Ledger.entries(db)).isEmpty();
        assertThat(outbox.after("u-1", 0, 10)).isEmpty();
        assertThat(outbox.lastSequences()).isEmpty();
        ChangeEnvelope next = ledger.record("u-1", "e-2", "alice", 20);
        assertThat(outbox.after(0, 10)).as("the unused position does not hold the read").containsExactly(next);
    }

    @Test
    void aPositionTakenByAnOpenTransaction_holdsTheReadUntilItCommits_evenWhenALaterOneCommittedFirst()
            throws Exception {
        try (Connection first = db.getConnection(); Connection second = db.getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            // the append is the first transaction's first statement: it has no transaction id of its own yet
            ChangeEnvelope early = outbox.append(first, "u-1", Ledger.ENTRY, "e-1", new byte[] {1});
            ChangeEnvelope late = outbox.append(second, "u-2", Ledger.ENTRY, "e-2", new byte[] {2});
            second.commit();
            assertThat(late.sequence()).isGreaterThan(early.sequence());

            assertThat(outbox.after(0, 10)).as("e-2 committed, but e-1's lower position may still commit")
                    .isEmpty();
            assertThat(outbox.oldestAfter(0)).as("counted as not shipped yet").containsOnlyKeys("u-2");

            first.commit();

            assertThat(outbox.after(0, 10)).extracting(ChangeEnvelope::key).containsExactly("e-1", "e-2");
        }
    }

    @Test
    void anOpenPosition_holdsTheRead_evenWhenItsTransactionIdIsAboveEveryCompletedOne() throws Exception {
        // d takes its transaction id first, c a later one with the lower position, d commits: c's id is then the
        // latest completed id + 1, the snapshot's xmax, which therefore cannot serve as the bound
        try (Connection d = db.getConnection(); Connection c = db.getConnection()) {
            d.setAutoCommit(false);
            c.setAutoCommit(false);
            try (var ps = d.prepareStatement("INSERT INTO ledger_entries VALUES ('e-d', 'dave', 1)")) {
                ps.executeUpdate();
            }
            ChangeEnvelope early = outbox.append(c, "u-1", Ledger.ENTRY, "e-c", new byte[] {1});
            ChangeEnvelope late = outbox.append(d, "u-2", Ledger.ENTRY, "e-d", new byte[] {2});
            d.commit();
            assertThat(late.sequence()).isGreaterThan(early.sequence());

            assertThat(outbox.after(0, 10)).isEmpty();

            c.commit();
            assertThat(outbox.after(0, 10)).extracting(ChangeEnvelope::key).containsExactly("e-c", "e-d");
        }
    }

    @Test
    void aPositionTakenByATransactionThatRollsBack_releasesTheRead() throws Exception {
        try (Connection first = db.getConnection(); Connection second = db.getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            outbox.append(first, "u-1", Ledger.ENTRY, "e-1", new byte[] {1});
            outbox.append(second, "u-1", Ledger.ENTRY, "e-2", new byte[] {2});
            second.commit();
            assertThat(outbox.after(0, 10)).isEmpty();

            first.rollback();

            assertThat(outbox.after(0, 10)).extracting(ChangeEnvelope::key).containsExactly("e-2");
        }
    }

    @Test
    void aFailedWrite_dropsItsChange() {
        ledger.record("u-1", "e-1", "alice", 10);

        assertThatThrownBy(() -> ledger.record("u-1", "e-1", "alice", 99)).hasMessageContaining("duplicate key");

        assertThat(outbox.after("u-1", 0, 10)).extracting(ChangeEnvelope::key).containsExactly("e-1");
    }

    @Test
    void appendingOutsideATransaction_isRefused() throws Exception {
        try (Connection autoCommit = db.getConnection()) {
            assertThatThrownBy(() -> outbox.append(autoCommit, "u-1", Ledger.ENTRY, "e-1", new byte[0]))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("auto-commit");
        }
    }

    @Test
    void concurrentWriters_getDistinctIncreasingPositions_andEachUnitReadsInOrder() throws Exception {
        ExecutorService writers = Executors.newFixedThreadPool(4);
        try {
            List<Future<ChangeEnvelope>> writes = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String unit = i % 2 == 0 ? "u-1" : "u-2";
                String id = "e-" + i;
                writes.add(writers.submit(() -> ledger.record(unit, id, "alice", 1)));
            }
            for (Future<ChangeEnvelope> write : writes) {
                write.get();
            }
        } finally {
            writers.shutdown();
        }

        List<ChangeEnvelope> all = outbox.after(0, 100);
        assertThat(all).hasSize(40);
        assertThat(all).extracting(ChangeEnvelope::sequence).isSorted().doesNotHaveDuplicates();
        for (String unit : List.of("u-1", "u-2")) {
            List<ChangeEnvelope> changes = outbox.after(unit, 0, 100);
            assertThat(changes).hasSize(20);
            for (int i = 1; i < changes.size(); i++) {
                assertThat(changes.get(i).previous()).as("chained").isEqualTo(changes.get(i - 1).sequence());
            }
            assertThat(outbox.lastSequences()).containsEntry(unit, changes.get(19).sequence());
        }
    }

    @Test
    void trimming_dropsWhatEveryRegionHas_andKeepsTheRest() {
        List<ChangeEnvelope> written = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            written.add(ledger.record("u-1", "e-" + i, "alice", i));
        }

        assertThat(outbox.trim(written.get(1).sequence())).isEqualTo(2);

        assertThat(outbox.after(0, 10)).extracting(ChangeEnvelope::key).containsExactly("e-3");
        assertThat(outbox.lastSequences()).containsEntry("u-1", written.get(2).sequence());
        assertThat(outbox.trim("u-1", written.get(2).sequence())).isEqualTo(1);
        assertThat(outbox.lastSequences()).isEmpty();
    }
}
