package io.unitas.data.outbox;

import static io.unitas.data.outbox.ThreeRegions.CN;
import static io.unitas.data.outbox.ThreeRegions.EU;
import static io.unitas.data.outbox.ThreeRegions.US;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.testkit.Await;
import io.unitas.testkit.MutableClock;
import io.unitas.testkit.Ports;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The background shipping loop: its failures and stalls are visible (status, meters, log), never silent. */
class ShipperLoopTest {

    private final Databases databases = Databases.postgres();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PGSimpleDataSource cn = databases.newPostgres("cn");
    private final InProcessTransport transport = InProcessTransport.create();
    private final OutboxShipper shipper = OutboxShipper.create(Outbox.jdbc(CN, cn, clock), transport,
                                                               List.of(EU, US), clock, registry,
                                                               Duration.ofSeconds(30));

    @AfterEach
    void close() {
        shipper.close();
        databases.close();
    }

    @Test
    void aLoopWhoseRoundsFail_keepsTrying_andSaysWhyInStatusMetersAndLog() {
        List<LogRecord> logged = ReplicationTest.capture(LoopingShipper.class);
        cn.setPortNumbers(new int[] {Ports.free()}); // cn's database is gone

        shipper.start(Duration.ofMillis(20));
        Await.until("two failed rounds", Duration.ofSeconds(30),
                    () -> registry.get("unitas.data.outbox.round.failures").counter().count() >= 2);

        ShipperStatus status = shipper.status();
        assertThat(status.healthy()).isFalse();
        assertThat(status.reason()).startsWith("outbox shipping of cn failing: cn: outbox: cannot read the changes");
        assertThat(logged).extracting(LogRecord::getMessage).filteredOn(m -> m.contains("round failed"))
                .as("one line per distinct failure, not one per round").hasSize(1);

        cn.setPortNumbers(new int[] {Databases.server().port()}); // back
        Await.until("a round succeeds", Duration.ofSeconds(30), () -> shipper.status().healthy());
        assertThat(logged).extracting(LogRecord::getMessage).anyMatch(m -> m.contains("recovered"));
    }

    @Test
    void aLoopThatStopsRunningRounds_isReportedStalled_byTheClock() {
        shipper.shipDue();
        assertThat(shipper.status().healthy()).isTrue();

        clock.advance(Duration.ofSeconds(31));

        assertThat(shipper.status().healthy()).isFalse();
        assertThat(shipper.status().reason()).contains("stalled: no round for 31 s");
        assertThat(registry.get("unitas.data.outbox.round.age").tag("origin", "cn").gauge().value()).isEqualTo(31.0);
    }

    @Test
    void aLoopStartedTwice_isRefused() {
        shipper.start(Duration.ofSeconds(1));

        assertThatThrownBy(() -> shipper.start(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already started");
    }
}
