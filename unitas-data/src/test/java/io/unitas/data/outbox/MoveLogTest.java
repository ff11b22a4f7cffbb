package io.unitas.data.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The outbox path's move ledger: which delivered changes crossed a move, recorded durably with positions. */
class MoveLogTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");

    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    private final Databases databases = Databases.h2();
    private final DataSource euDb = databases.newDatabase("eu");

    @AfterEach
    void close() {
        databases.close();
    }

    private ChangeEnvelope fromCn(long sequence, Instant writtenAt) {
        return new ChangeEnvelope("u-1", CN, sequence, 0, "ledger_entry", "e-" + sequence, new byte[0], writtenAt);
    }

    /** eu has applied cn's changes of u-1 through {@code position}. */
    private void applied(long position) {
        Ledger.execute(euDb, "INSERT INTO unitas_applied (origin, unit, applied_seq, applied_at) VALUES ('cn', 'u-1', "
                             + position + ", 0)");
    }

    @Test
    void theFirstHomeSeen_isNoMove_andNothingCrossesIt() {
        MoveLog log = MoveLog.jdbc(EU, euDb, clock);

        assertThat(log.observe("u-1", CN)).isEmpty();
        assertThat(log.observe("u-1", CN)).isEmpty();
        assertThat(log.crossed(fromCn(5, clock.instant()))).isEmpty();
    }

    @Test
    void aMove_isRecordedWithWhatTheOldHomeHadShippedHere_andChangesBeyondItCrossIt() {
        MoveLog log = MoveLog.jdbc(EU, euDb, clock);
        log.observe("u-1", CN);
        applied(7);
        Instant before = clock.instant();
        clock.advance(Duration.ofSeconds(10));

        RecordedMove move = log.observe("u-1", EU).orElseThrow();

        assertThat(move.shippedThrough()).isEqualTo(7);
        assertThat(log.crossed(fromCn(8, before))).contains(move);
        assertThat(log.crossed(fromCn(7, before))).as("shipped before the move").isEmpty();
        assertThat(log.crossed(new ChangeEnvelope("u-1", EU, 9, 0, "ledger_entry", "e", new byte[0], before)))
                .as("the new home's own changes are ordinary").isEmpty();
    }

    @Test
    void changesWrittenAfterTheUnitCameBack_areOrdinary_thoseFromBeforeStillCrossed() {
        MoveLog log = MoveLog.jdbc(EU, euDb, clock);
        log.observe("u-1", CN);
        applied(7);
        Instant unshipped = clock.instant();
        clock.advance(Duration.ofSeconds(10));
        RecordedMove away = log.observe("u-1", EU).orElseThrow();
        clock.advance(Duration.ofSeconds(10));
        log.observe("u-1", CN);
        Instant afterReturn = clock.instant().plusSeconds(1);

        assertThat(log.crossed(fromCn(8, unshipped))).contains(away);
        assertThat(log.crossed(fromCn(20, afterReturn))).isEmpty();
    }

    @Test
    void movesAreDurable_andTwoLogsOfOneRegionRecordAMoveOnce() {
        MoveLog first = MoveLog.jdbc(EU, euDb, clock);
        MoveLog second = MoveLog.jdbc(EU, euDb, clock);
        first.observeAll(Map.of("u-1", CN));
        second.observeAll(Map.of("u-1", CN));
        applied(7);
        clock.advance(Duration.ofSeconds(10));

        assertThat(first.observe("u-1", EU)).isPresent();
        assertThat(second.observe("u-1", EU)).as("already recorded by the other").isEmpty();

        MoveLog restarted = MoveLog.jdbc(EU, euDb, clock);
        assertThat(restarted.moves("u-1")).hasSize(1).first()
                .satisfies(m -> assertThat(m.shippedThrough()).isEqualTo(7));
        assertThat(second.moves("u-1")).hasSize(1);
        assertThat(Ledger.count(euDb, "SELECT COUNT(*) FROM unitas_unit_moves")).isEqualTo(1);
    }
}
