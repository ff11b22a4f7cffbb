package io.unitas.data.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.reconcile.Conflict;
import io.unitas.data.reconcile.ReconcilePolicy;
import io.unitas.data.reconcile.Reconciliations;
import io.unitas.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A promotion on the outbox path, on real PostgreSQL (one database per region): cn writes ledger entries of unit u-1,
 * the unit is promoted to eu before cn ships the last two, eu writes one of the same entries, and cn comes back.
 * cn's unshipped changes are reconciled in eu — the entry eu also wrote is a conflict with eu's version kept
 * everywhere, the entry eu did not have is adopted — and never applied over eu's data; without the move log, the same
 * history ends with cn's version written over eu's (the failure this prevents).
 */
class PromotionReconciliationTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final List<Region> ALL = List.of(CN, EU, US);
    private static final String UNIT = "u-1";

    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    private final Databases databases = Databases.postgres();
    private final InProcessTransport transport = InProcessTransport.create();
    private final Map<String, Region> live = new ConcurrentHashMap<>(Map.of(UNIT, CN));
    private final Map<Region, DataSource> db = new LinkedHashMap<>();
    private final Map<Region, Outbox> outbox = new LinkedHashMap<>();
    private final Map<Region, Reconciliations> counts = new LinkedHashMap<>();
    private final Map<Region, SimpleMeterRegistry> meters = new LinkedHashMap<>();
    private final Map<Region, OutboxShipper> shipper = new LinkedHashMap<>();

    /** A ledger entry as the service encodes it: {@code account|amount}. */
    private static final ReconcilingHandler.Entities<String> ENTRIES = new ReconcilingHandler.Entities<>() {
        @Override
        public String decode(ChangeEnvelope change) {
            return new String(change.payload(), StandardCharsets.UTF_8);
        }

        @Override
        public byte[] encode(String entry) {
            return entry.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public Optional<String> read(Connection tx, String key) throws SQLException {
            try (PreparedStatement ps = tx.prepareStatement(
                    "SELECT account, amount FROM ledger_entries WHERE entry_id = ?")) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1) + "|" + rs.getLong(2)) : Optional.empty();
                }
            }
        }

        @Override
        public void write(Connection tx, String key, String entry) throws SQLException {
            Ledger.HANDLER.apply(tx, new ChangeEnvelope(UNIT, CN, 1, Ledger.ENTRY, key, encode(entry),
                                                        Instant.EPOCH));
        }
    };

    private void start(boolean reconcile) {
        for (Region region : ALL) {
            DataSource ds = databases.newDatabase(region.id());
            Ledger.createSchema(ds);
            db.put(region, ds);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            meters.put(region, registry);
            outbox.put(region, Outbox.jdbc(region, ds, clock));
            counts.put(region, new Reconciliations(registry));
            Map<String, ChangeHandler> handlers = Map.of(Ledger.ENTRY, Ledger.HANDLER);
            ChangeApplier applier;
            if (reconcile) {
                applier = ChangeApplier.jdbc(region, ds, handlers, clock, registry, () -> live,
                        CrossedChangeHandler.byType(Map.of(Ledger.ENTRY, new ReconcilingHandler<>(
                                ENTRIES, ReconcilePolicy.conflictUnlessEqual(), outbox.get(region),
                                counts.get(region), clock))));
            } else {
                applier = ChangeApplier.jdbc(region, ds, handlers, clock, registry);
            }
            transport.receiver(applier);
        }
        for (Region region : ALL) {
            shipper.put(region, OutboxShipper.create(outbox.get(region), transport,
                                                     ALL.stream().filter(r -> !r.equals(region)).toList(), clock,
                                                     meters.get(region), Duration.ofSeconds(30)));
        }
    }

    @AfterEach
    void close() {
        shipper.values().forEach(OutboxShipper::close);
        transport.close();
        databases.close();
    }

    /** One round in the regions that are up: each ships (each applier samples the live unit map first). */
    private void round(List<Region> up) {
        clock.advance(Duration.ofMillis(100));
        for (Region region : up) {
            shipper.get(region).shipDue();
        }
    }

    private Ledger ledger(Region region) {
        return new Ledger(db.get(region), outbox.get(region));
    }

    private String entry(Region region, String id) {
        try (Connection c = db.get(region).getConnection()) {
            return ENTRIES.read(c, id).orElse(null);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The history both cases share, up to cn's return; returns cn's last change shipped before the promotion. */
    private ChangeEnvelope promotionWithUnshippedChanges() {
        round(ALL);                                                       // every region sees u-1 at home in cn
        ChangeEnvelope shipped = ledger(CN).record(UNIT, "e-1", "alice", 10);
        round(ALL);

        transport.pause(EU, CN);                                          // cn is cut off
        transport.pause(US, CN);
        ledger(CN).record(UNIT, "e-2", "alice", 5);                       // acknowledged in cn, never shipped
        ledger(CN).record(UNIT, "e-3", "alice", 3);

        live.put(UNIT, EU);                                               // promoted: cn cannot ship
        round(List.of(EU, US));
        ledger(EU).record(UNIT, "e-2", "alice", 7);                       // eu writes the same entry meanwhile
        round(List.of(EU, US));
        assertThat(entry(US, "e-2")).isEqualTo("alice|7");

        transport.resume(EU, CN);                                         // cn returns
        transport.resume(US, CN);
        for (int i = 0; i < 4; i++) {
            round(ALL);
        }
        return shipped;
    }

    @Test
    void theOldHomesUnshippedChanges_areReconciledInTheNewHome_neverAppliedOverIt() {
        start(true);

        ChangeEnvelope shipped = promotionWithUnshippedChanges();

        for (Region region : ALL) {
            assertThat(entry(region, "e-2")).as(region + ": eu's version stands").isEqualTo("alice|7");
            assertThat(entry(region, "e-3")).as(region + ": adopted by eu, shipped by eu").isEqualTo("alice|3");
            assertThat(entry(region, "e-1")).isEqualTo("alice|10");
        }
        Reconciliations.Report eu = counts.get(EU).report();
        assertThat(eu.crossed()).isEqualTo(2);
        assertThat(eu.adopted()).isEqualTo(1);
        assertThat(eu.conflicts()).isEqualTo(1);
        Conflict conflict = eu.conflictList().get(0);
        assertThat(conflict.unit()).isEqualTo(UNIT);
        assertThat(conflict.kind()).isEqualTo(Ledger.ENTRY);
        assertThat(conflict.key()).isEqualTo("e-2");
        assertThat(conflict.origin()).isEqualTo(CN);
        assertThat(conflict.home()).isEqualTo(EU);
        assertThat(conflict.detail()).contains("alice|5", "alice|7");
        assertThat(counts.get(EU).status().reason()).contains("unit u-1 ledger_entry e-2");
        assertThat(meters.get(EU).get("unitas.data.reconcile.conflicts.open").tag("kind", Ledger.ENTRY).gauge()
                             .value()).isEqualTo(1.0);
        assertThat(counts.get(US).report().crossed()).as("only the new home decides").isZero();

        // the move, with how far cn had shipped there, is in eu's database: a restarted eu still knows it
        List<RecordedMove> recorded = MoveLog.jdbc(EU, db.get(EU), clock).moves(UNIT);
        assertThat(recorded).hasSize(1);
        assertThat(recorded.get(0).from()).isEqualTo(CN);
        assertThat(recorded.get(0).to()).isEqualTo(EU);
        assertThat(recorded.get(0).shippedThrough()).isEqualTo(shipped.sequence());
        assertThat(transport.stopped(CN)).isEmpty();
    }

    @Test
    void withoutTheMoveLog_theOldHomesUnshippedChange_isWrittenOverTheNewHomes() {
        start(false);

        promotionWithUnshippedChanges();

        assertThat(entry(EU, "e-2")).as("cn's 5 over eu's 7: what the move log prevents").isEqualTo("alice|5");
    }
}
