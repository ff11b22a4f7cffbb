package io.unitas.data.outbox;

import static io.unitas.data.outbox.ThreeRegions.CN;
import static io.unitas.data.outbox.ThreeRegions.EU;
import static io.unitas.data.outbox.ThreeRegions.US;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The same replication on H2, the embedded default of {@code unitas up}: the same SQL, the same contract. */
class EmbeddedReplicationTest {

    private final ThreeRegions regions = new ThreeRegions(Databases.h2());

    @AfterEach
    void close() {
        regions.close();
    }

    @Test
    void changesShipInOrder_lagIsMeasured_andARejectedChangeStopsOnlyItsUnit() {
        Ledger.execute(regions.db.get(EU), "ALTER TABLE ledger_entries ADD CONSTRAINT entries_below_a_million"
                                           + " CHECK (amount < 1000000)");
        Ledger cn = regions.ledger(CN);
        cn.record("u-1", "e-1", "alice", 10);
        cn.record("u-1", "e-2", "alice", 5_000_000);
        cn.record("u-2", "e-3", "bob", 30);
        regions.transport.pause(CN, US);
        regions.clock.advance(Duration.ofSeconds(2));

        regions.shipDue();

        assertThat(Ledger.entries(regions.db.get(EU))).containsExactly("e-1", "e-3");
        assertThat(regions.applier.get(EU).stopped()).extracting(StoppedStream::unit).containsExactly("u-1");
        UnitLagReport lag = regions.shipper.get(CN).lag();
        assertThat(lag.lagMillis("u-1", EU)).isEqualTo(2_000);
        assertThat(lag.lagMillis("u-2", EU)).isZero();
        assertThat(lag.maxLagMillis(List.of("u-1", "u-2"), US)).isEqualTo(2_000);

        regions.transport.resume(CN, US);
        regions.shipDue();

        assertThat(Ledger.entries(regions.db.get(US))).containsExactly("e-1", "e-2", "e-3");
        assertThat(regions.shipper.get(CN).lag().caughtUp(List.of("u-1", "u-2"), US)).isTrue();
    }
}
