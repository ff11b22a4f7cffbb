package io.unitas.data.outbox;

import static io.unitas.data.outbox.ThreeRegions.CN;
import static io.unitas.data.outbox.ThreeRegions.EU;
import static io.unitas.data.outbox.ThreeRegions.US;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.unitas.data.outbox.ApplyResult.Outcome;
import io.unitas.testkit.Ports;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Replication as a contract, on three real PostgreSQL databases (cn, eu, us): per-unit order, once-only apply under
 * repeated and early delivery, lag per unit while a link is cut, and a change a region rejects stopping only its unit.
 */
class ReplicationTest {

    private final ThreeRegions regions = new ThreeRegions(Databases.postgres());

    @AfterEach
    void close() {
        regions.close();
    }

    @Test
    void eachUnitsChanges_arriveInTheirOrder_andTheirPositionsAreStoredWithTheData() {
        Ledger cn = regions.ledger(CN);
        long lastOfU1 = 0;
        long lastOfU2 = 0;
        for (int i = 1; i <= 5; i++) {
            lastOfU1 = cn.record("u-1", "e-1-" + i, "alice", i).sequence();
            lastOfU2 = i <= 3 ? cn.record("u-2", "e-2-" + i, "bob", i).sequence() : lastOfU2; // interleaved
        }

        regions.shipDue();

        for (var region : List.of(EU, US)) {
            assertThat(Ledger.entries(regions.db.get(region))).containsExactly(
                    "e-1-1", "e-1-2", "e-1-3", "e-1-4", "e-1-5", "e-2-1", "e-2-2", "e-2-3");
            assertThat(regions.applier.get(region).positions(CN)).containsExactly(Map.entry("u-1", lastOfU1),
                                                                                  Map.entry("u-2", lastOfU2));
        }
        assertThat(Ledger.count(regions.db.get(CN), "SELECT COUNT(*) FROM unitas_outbox"))
                .as("changes every region applied are trimmed").isZero();
    }

    @Test
    void aChangeDeliveredTwice_orBeforeItsPredecessor_isAppliedOnce() {
        Ledger cn = regions.ledger(CN);
        ChangeEnvelope first = cn.record("u-1", "e-1", "alice", 10);
        cn.record("u-2", "e-x", "bob", 1); // another unit's position in between
        ChangeEnvelope second = cn.record("u-1", "e-2", "alice", 20).withPrevious(first.sequence());
        ChangeApplier eu = regions.applier.get(EU);

        assertThat(eu.apply(second).outcome()).as("early").isEqualTo(Outcome.GAP);
        assertThat(Ledger.entries(regions.db.get(EU))).isEmpty();
        assertThat(eu.apply(first).outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(eu.apply(first).outcome()).as("again").isEqualTo(Outcome.DUPLICATE);
        assertThat(eu.apply(second).outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(eu.apply(second).outcome()).as("again").isEqualTo(Outcome.DUPLICATE);

        assertThat(Ledger.entries(regions.db.get(EU))).containsExactly("e-1", "e-2");
        assertThat(eu.positions(CN)).containsExactly(Map.entry("u-1", second.sequence()));
        assertThat(eu.stopped()).as("the early change was delivered later: nothing left stopped").isEmpty();
    }

    @Test
    void aChangeCommittedWhileAnEarlierPositionIsOpen_waitsForIt_countsAsLag_andShipsAfterItOnceItCommits()
            throws Exception {
        DataSource cnDb = regions.db.get(CN);
        Outbox outbox = regions.outbox.get(CN);
        try (Connection slow = cnDb.getConnection(); Connection fast = cnDb.getConnection()) {
            slow.setAutoCommit(false);
            fast.setAutoCommit(false);
            insert(slow, "e-1", 10);
            outbox.append(slow, "u-1", Ledger.ENTRY, "e-1", "alice|10".getBytes(StandardCharsets.UTF_8));
            insert(fast, "e-2", 20);
            outbox.append(fast, "u-1", Ledger.ENTRY, "e-2", "alice|20".getBytes(StandardCharsets.UTF_8));
            fast.commit();
            regions.clock.advance(Duration.ofSeconds(2));

            regions.shipDue();

            assertThat(Ledger.entries(regions.db.get(EU))).as("e-2 waits behind e-1's open position").isEmpty();
            assertThat(regions.shipper.get(CN).lag().lagMillis("u-1", EU)).as("e-2 is committed and not applied")
                    .isEqualTo(2_000);

            slow.commit();
        }
        regions.shipDue();

        for (var region : List.of(EU, US)) {
            assertThat(Ledger.entries(regions.db.get(region))).containsExactly("e-1", "e-2");
        }
        assertThat(regions.shipper.get(CN).lag().caughtUp(List.of("u-1"), EU)).isTrue();
    }

    private static void insert(Connection tx, String entryId, long amount) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement(
                "INSERT INTO ledger_entries (entry_id, account, amount) VALUES (?, 'alice', ?)")) {
            ps.setString(1, entryId);
            ps.setLong(2, amount);
            ps.executeUpdate();
        }
    }

    @Test
    void aChangeDeliveredByTwoThreadsAtOnce_isAppliedOnce() throws Exception {
        ChangeEnvelope change = regions.ledger(CN).record("u-1", "e-1", "alice", 10);
        ChangeApplier eu = regions.applier.get(EU);
        eu.positions(CN); // warm the connection path, so both threads start together

        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        Thread a = new Thread(() -> outcomes.add(eu.apply(change).outcome()));
        Thread b = new Thread(() -> outcomes.add(eu.apply(change).outcome()));
        a.start();
        b.start();
        a.join();
        b.join();

        assertThat(outcomes).containsExactlyInAnyOrder(Outcome.APPLIED, Outcome.DUPLICATE);
        assertThat(Ledger.entries(regions.db.get(EU))).containsExactly("e-1");
    }

    @Test
    void lagPerUnit_growsWhileALinkIsPaused_andIsZeroOnceItCatchesUp() {
        Ledger cn = regions.ledger(CN);
        regions.transport.pause(CN, EU);
        cn.record("u-1", "e-1", "alice", 10);
        regions.clock.advance(Duration.ofSeconds(2));
        cn.record("u-1", "e-2", "alice", 20);
        regions.clock.advance(Duration.ofSeconds(3));

        regions.shipDue();

        UnitLagReport lag = regions.shipper.get(CN).lag();
        assertThat(lag.lagMillis("u-1", EU)).as("oldest change not applied in eu: 5 s old").isEqualTo(5_000);
        assertThat(lag.lagMillis("u-1", US)).isZero();
        assertThat(lag.caughtUp(List.of("u-1"), US)).isTrue();
        assertThat(regions.gauge(CN, "unitas.data.unit.lag", "unit", "u-1", "target", "eu")).isEqualTo(5.0);
        assertThat(regions.gauge(CN, "unitas.data.unit.lag", "unit", "u-1", "target", "us")).isZero();

        regions.clock.advance(Duration.ofSeconds(1));
        regions.shipDue();
        assertThat(regions.shipper.get(CN).lag().lagMillis("u-1", EU)).isEqualTo(6_000);

        regions.transport.resume(CN, EU);
        regions.shipDue();

        assertThat(regions.shipper.get(CN).lag().lagMillis("u-1", EU)).isZero();
        assertThat(regions.gauge(CN, "unitas.data.unit.lag", "unit", "u-1", "target", "eu")).isZero();
        assertThat(Ledger.entries(regions.db.get(EU))).containsExactly("e-1", "e-2");
    }

    @Test
    void aChangeARegionRejects_stopsOnlyItsUnit_withItsPositionAndReasonVisible() {
        List<LogRecord> logged = capture(JdbcChangeApplier.class);
        // eu's ledger refuses entries of a million or more; cn's does not
        Ledger.execute(regions.db.get(EU), "ALTER TABLE ledger_entries ADD CONSTRAINT entries_below_a_million"
                                           + " CHECK (amount < 1000000)");
        Ledger cn = regions.ledger(CN);
        long e1 = cn.record("u-1", "e-1", "alice", 10).sequence();
        long e2 = cn.record("u-1", "e-2", "alice", 5_000_000).sequence();
        cn.record("u-1", "e-3", "alice", 30);
        cn.record("u-2", "e-4", "bob", 40);
        regions.clock.advance(Duration.ofSeconds(4));

        regions.shipDue();

        assertThat(Ledger.entries(regions.db.get(EU))).as("u-1 stops before e-2; u-2 flows")
                .containsExactly("e-1", "e-4");
        assertThat(Ledger.entries(regions.db.get(US))).containsExactly("e-1", "e-2", "e-3", "e-4");
        StoppedStream stopped = regions.applier.get(EU).stopped().get(0);
        assertThat(stopped.unit()).isEqualTo("u-1");
        assertThat(stopped.position()).isEqualTo(e1);
        assertThat(stopped.refused()).isEqualTo(e2);
        assertThat(stopped.reason()).contains("entries_below_a_million");
        assertThat(regions.gauge(EU, "unitas.data.unit.stopped", "origin", "cn", "unit", "u-1", "target", "eu"))
                .isEqualTo(1.0);
        ShipperStatus status = regions.shipper.get(CN).status();
        assertThat(status.healthy()).isFalse();
        assertThat(status.reason()).contains("unit u-1 from cn stopped in eu at position " + e1, "cn/u-1#" + e2);
        assertThat(logged).extracting(LogRecord::getMessage).anyMatch(m -> m.contains("unit u-1")
                                                                         && m.contains("position " + e1));
        UnitLagReport lag = regions.shipper.get(CN).lag();
        assertThat(lag.lagMillis("u-1", EU)).as("the stopped unit's lag keeps growing").isEqualTo(4_000);
        assertThat(lag.lagMillis("u-2", EU)).isZero();

        // the schema is fixed: the next round applies the held change and the stream resumes
        Ledger.execute(regions.db.get(EU), "ALTER TABLE ledger_entries DROP CONSTRAINT entries_below_a_million");
        regions.shipDue();

        assertThat(Ledger.entries(regions.db.get(EU))).containsExactly("e-1", "e-2", "e-3", "e-4");
        assertThat(regions.applier.get(EU).stopped()).isEmpty();
        assertThat(regions.gauge(EU, "unitas.data.unit.stopped", "origin", "cn", "unit", "u-1", "target", "eu"))
                .isZero();
        assertThat(regions.shipper.get(CN).status().healthy()).isTrue();
        assertThat(regions.shipper.get(CN).lag().lagMillis("u-1", EU)).isZero();
    }

    @Test
    void aChangeOfAnEntityTypeTheTargetDoesNotKnow_stopsItsUnit_namingTheType() {
        ChangeApplier eu = regions.applier.get(EU);
        ChangeEnvelope unknown = new ChangeEnvelope("u-9", CN, 1, "invoice", "i-1", new byte[0],
                                                    regions.clock.instant());

        ApplyResult result = eu.apply(unknown);

        assertThat(result.outcome()).isEqualTo(Outcome.REJECTED);
        assertThat(result.reason()).contains("'invoice'", "ledger_entry");
        assertThat(eu.positions(CN)).containsEntry("u-9", 0L);
    }

    @Test
    void aRestartedShipper_republishesFromWhatTheTargetsAcknowledged_andNothingIsAppliedTwice() {
        Ledger cn = regions.ledger(CN);
        cn.record("u-1", "e-1", "alice", 10);
        regions.transport.pause(CN, US);
        regions.shipDue();
        long e2 = cn.record("u-1", "e-2", "alice", 20).sequence();

        // cn's process restarts: a new shipper knows nothing of what the old one published
        regions.shipper.get(CN).close();
        OutboxShipper restarted = OutboxShipper.create(regions.outbox.get(CN), regions.transport, List.of(EU, US),
                                                       regions.clock, new SimpleMeterRegistry(),
                                                       Duration.ofSeconds(30));
        regions.transport.resume(CN, US);
        restarted.shipDue();

        for (var region : List.of(EU, US)) {
            assertThat(Ledger.entries(regions.db.get(region))).containsExactly("e-1", "e-2");
            assertThat(regions.applier.get(region).positions(CN)).containsEntry("u-1", e2);
        }
        assertThat(restarted.lag().caughtUp(List.of("u-1"), US)).isTrue();
    }

    @Test
    void aReadOnlyTarget_holdsItsChangesWithoutStoppingAnyStream_andCatchesUpWhenWritableAgain() {
        PGSimpleDataSource eu = (PGSimpleDataSource) regions.db.get(EU);
        Ledger cn = regions.ledger(CN);
        cn.record("u-1", "e-1", "alice", 10);
        regions.shipDue();
        Databases.server().execute("ALTER DATABASE " + eu.getDatabaseName()
                                   + " SET default_transaction_read_only = on");
        cn.record("u-1", "e-2", "alice", 20);
        regions.clock.advance(Duration.ofSeconds(3));

        regions.shipDue();

        assertThat(Ledger.entries(eu)).containsExactly("e-1");
        assertThat(regions.applier.get(EU).stopped()).as("read-only is a fault of the region, not of the change")
                .isEmpty();
        assertThat(regions.shipper.get(CN).lag().lagMillis("u-1", EU)).isEqualTo(3_000);
        assertThat(regions.transport.queued(CN, EU)).isEqualTo(1);

        Databases.server().execute("ALTER DATABASE " + eu.getDatabaseName()
                                   + " SET default_transaction_read_only = off");
        regions.shipDue();

        assertThat(Ledger.entries(eu)).containsExactly("e-1", "e-2");
        assertThat(regions.shipper.get(CN).lag().lagMillis("u-1", EU)).isZero();
    }

    @Test
    void anUnreachableTarget_holdsItsChanges_whileTheOthersFlow_andCatchesUpWhenBack() {
        PGSimpleDataSource eu = (PGSimpleDataSource) regions.db.get(EU);
        Ledger cn = regions.ledger(CN);
        cn.record("u-1", "e-1", "alice", 10);
        regions.shipDue();
        eu.setPortNumbers(new int[] {Ports.free()}); // eu's database is gone
        cn.record("u-1", "e-2", "alice", 20);
        regions.clock.advance(Duration.ofSeconds(2));

        regions.shipper.get(CN).shipDue();

        assertThat(Ledger.entries(regions.db.get(US))).containsExactly("e-1", "e-2");
        assertThat(regions.shipper.get(CN).lag().lagMillis("u-1", EU)).isEqualTo(2_000);
        assertThat(regions.shipper.get(CN).lag().lagMillis("u-1", US)).isZero();
        assertThat(regions.shipper.get(CN).status().healthy()).as("cn ships; eu's fault shows as eu's lag").isTrue();

        eu.setPortNumbers(new int[] {Databases.server().port()});
        regions.shipper.get(CN).shipDue();

        assertThat(Ledger.entries(eu)).containsExactly("e-1", "e-2");
        assertThat(regions.shipper.get(CN).lag().lagMillis("u-1", EU)).isZero();
    }

    @Test
    void theLagGauge_isExportedToPrometheusAsSecondsPerUnitAndTarget() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        OutboxShipper shipper = OutboxShipper.create(regions.outbox.get(CN), regions.transport, List.of(EU, US),
                                                     regions.clock, prometheus, Duration.ofSeconds(30));
        regions.transport.pause(CN, EU);
        regions.ledger(CN).record("u-1", "e-1", "alice", 10);
        regions.clock.advance(Duration.ofMillis(1_500));

        shipper.shipDue();

        assertThat(prometheus.scrape()).contains("unitas_data_unit_lag_seconds{target=\"eu\",unit=\"u-1\"} 1.5",
                                                 "unitas_data_unit_lag_seconds{target=\"us\",unit=\"u-1\"} 0.0");
    }

    static List<LogRecord> capture(Class<?> type) {
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Logger logger = Logger.getLogger(type.getName());
        logger.addHandler(new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        });
        return records;
    }
}
