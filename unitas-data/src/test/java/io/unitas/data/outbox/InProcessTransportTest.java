package io.unitas.data.outbox;

import static io.unitas.data.outbox.ThreeRegions.CN;
import static io.unitas.data.outbox.ThreeRegions.EU;
import static io.unitas.data.outbox.ThreeRegions.US;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.data.outbox.InProcessTransport.LinkStatus;
import java.time.Duration;
import java.util.List;
import java.util.logging.LogRecord;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.testkit.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The in-process transport's bounded links: a paused link holds at most its capacity, and loses nothing beyond it. */
class InProcessTransportTest {

    private final ThreeRegions regions = new ThreeRegions(Databases.postgres(), 3);

    @AfterEach
    void close() {
        regions.close();
    }

    @Test
    void aPausedLinkOverItsCapacity_takesNoMore_saysSo_andGetsEveryChangeOnceItCatchesUp() {
        List<LogRecord> logged = ReplicationTest.capture(MemoryTransport.class);
        Ledger cn = regions.ledger(CN);
        regions.transport.pause(CN, EU);
        for (int i = 1; i <= 5; i++) {
            cn.record(i % 2 == 0 ? "u-2" : "u-1", "e-" + i, "alice", i);
        }
        regions.clock.advance(Duration.ofSeconds(3));

        regions.shipDue();

        LinkStatus link = regions.transport.link(CN, EU);
        assertThat(link.queued()).as("memory bounded").isEqualTo(3);
        assertThat(link.overCap()).isTrue();
        assertThat(link.refused()).isEqualTo(2);
        assertThat(link.describe()).isEqualTo("link cn->eu: 3 of 3 changes queued, paused, over its capacity:"
                                              + " 2 changes wait in cn's outbox");
        assertThat(logged).extracting(LogRecord::getMessage).filteredOn(m -> m.contains("over its capacity"))
                .as("one line, for the held link only")
                .hasSize(1);
        assertThat(Ledger.entries(regions.db.get(US))).as("the other link flows")
                .containsExactly("e-1", "e-2", "e-3", "e-4", "e-5");
        assertThat(regions.shipper.get(CN).lag().maxLagMillis(List.of("u-1", "u-2"), EU)).isEqualTo(3_000);

        regions.transport.resume(CN, EU);
        regions.shipDue(); // delivers the 3 it holds, then asks cn to publish again
        regions.shipDue(); // cn publishes from eu's acknowledged positions

        assertThat(Ledger.entries(regions.db.get(EU))).containsExactly("e-1", "e-2", "e-3", "e-4", "e-5");
        assertThat(regions.transport.link(CN, EU).overCap()).isFalse();
        assertThat(regions.shipper.get(CN).lag().caughtUp(List.of("u-1", "u-2"), EU)).isTrue();
        assertThat(regions.shipper.get(CN).lag().caughtUp(List.of("u-1", "u-2"), US)).isTrue();
        assertThat(Ledger.count(regions.db.get(CN), "SELECT COUNT(*) FROM unitas_outbox")).isZero();
    }

    @Test
    void aRegionWhoseApplierJoinsAfterARoundShipped_getsWhatWasShippedBefore() {
        Databases databases = Databases.postgres();
        MutableClock clock = new MutableClock(java.time.Instant.parse("2026-03-03T09:00:00Z"));
        InProcessTransport transport = InProcessTransport.create();
        OutboxShipper shipper = null;
        try {
            javax.sql.DataSource cnDb = databases.newDatabase("cn");
            javax.sql.DataSource euDb = databases.newDatabase("eu");
            Ledger.createSchema(cnDb);
            Ledger.createSchema(euDb);
            Outbox cnOutbox = Outbox.jdbc(CN, cnDb, clock);
            transport.receiver(ChangeApplier.jdbc(CN, cnDb, java.util.Map.of(Ledger.ENTRY, Ledger.HANDLER), clock,
                                                  new SimpleMeterRegistry()));
            shipper = OutboxShipper.create(cnOutbox, transport, List.of(EU), clock, new SimpleMeterRegistry(),
                                           Duration.ofSeconds(30));
            new Ledger(cnDb, cnOutbox).record("u-1", "e-1", "alice", 1);
            shipper.shipDue();                                 // eu has no applier yet: queued for nobody

            transport.receiver(ChangeApplier.jdbc(EU, euDb, java.util.Map.of(Ledger.ENTRY, Ledger.HANDLER), clock,
                                                  new SimpleMeterRegistry()));
            shipper.shipDue();

            assertThat(Ledger.entries(euDb)).containsExactly("e-1");
            assertThat(shipper.lag().caughtUp(List.of("u-1"), EU)).isTrue();
        } finally {
            if (shipper != null) {
                shipper.close();
            }
            transport.close();
            databases.close();
        }
    }

    @Test
    void aCapacityBelowOne_isRefused() {
        assertThatThrownBy(() -> InProcessTransport.create(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("capacity: 0 (expected: >= 1)");
    }
}
