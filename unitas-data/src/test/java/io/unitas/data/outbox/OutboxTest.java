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
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The transactional outbox on a real PostgreSQL: the service's write and its change commit or vanish together. */
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
        assertThat(change.sequence()).isEqualTo(1);
        assertThat(change.origin()).isEqualTo(CN);
        assertThat(change.writtenAt()).isEqualTo(clock.instant());
    }

    @Test
    void aRolledBackWrite_leavesNeitherTheRowNorTheChange_norAGapInTheSequence() {
        ledger.recordThenRollBack("u-1", "e-1", "alice", 10);

        assertThat(Ledger.entries(db)).isEmpty();
        assertThat(outbox.after("u-1", 0, 10)).isEmpty();
        assertThat(outbox.lastSequences()).isEmpty();
        assertThat(ledger.record("u-1", "e-2", "alice", 20).sequence()).as("no gap").isEqualTo(1);
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
    void concurrentWritersOfOneUnit_getGaplessSequences_andUnitsCountApart() throws Exception {
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

        for (String unit : List.of("u-1", "u-2")) {
            assertThat(outbox.after(unit, 0, 100)).extracting(ChangeEnvelope::sequence)
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, 20).boxed().toList());
        }
        assertThat(outbox.lastSequences()).containsEntry("u-1", 20L).containsEntry("u-2", 20L);
    }

    @Test
    void trimming_dropsWhatEveryRegionHas_andKeepsTheRest() {
        for (int i = 1; i <= 3; i++) {
            ledger.record("u-1", "e-" + i, "alice", i);
        }

        assertThat(outbox.trim("u-1", 2)).isEqualTo(2);

        assertThat(outbox.after("u-1", 0, 10)).extracting(ChangeEnvelope::sequence).containsExactly(3L);
        assertThat(outbox.lastSequences()).containsEntry("u-1", 3L);
    }
}
