package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.config.HealthReportJson;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.health.HealthReport;
import io.unitas.core.health.UnitLink;
import io.unitas.core.switchover.Switchover;
import io.unitas.core.switchover.SwitchoverCooldown;
import io.unitas.core.switchover.SwitchoverPhase;
import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.JdbcUnitPositions;
import io.unitas.data.outbox.Outbox;
import io.unitas.testkit.MutableClock;
import io.unitas.testkit.PostgresCluster;

/**
 * Per-unit lag from any deployment: each region reports only what its own PostgreSQL database says (what it wrote,
 * what it applied), and the control plane computes the lag per unit and link, waits on it in a switchover, and
 * states a promotion's RPO from it. cn writes u-sh through the real outbox; eu and us apply it with the real applier;
 * the control plane's ticks are driven on a controlled clock. The fixtures' regions: cn (u-sh, u-bj), eu (u-de),
 * us (u-ny).
 */
class LagFromPositionsTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");
    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");

    @TempDir
    Path dir;

    private final PostgresCluster pg = PostgresCluster.shared();
    private final MutableClock clock = new MutableClock(T0);
    private final Map<Region, PGSimpleDataSource> databases = new LinkedHashMap<>();
    private final List<String> created = new ArrayList<>();
    private EmbeddedStore store;
    private ControlService service;
    private Outbox cnOutbox;
    private long sequence = 1;

    @BeforeEach
    void seed() {
        for (Region region : List.of(CN, EU, US)) {
            String name = "unitas_lag_" + region + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
            pg.primary().execute("CREATE DATABASE " + name);
            created.add(name);
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setUrl("jdbc:postgresql://127.0.0.1:" + pg.primary().port() + "/" + name);
            ds.setUser("postgres");
            UnitasSchema.migrate(ds, clock);
            databases.put(region, ds);
        }
        cnOutbox = Outbox.jdbc(CN, databases.get(CN), clock);
        store = new EmbeddedStore(dir);
        service = new ControlService(store, clock, Duration.ofSeconds(30), Duration.ofSeconds(30),
                                     Duration.ofSeconds(30), SwitchoverCooldown.DEFAULT, Duration.ofSeconds(30),
                                     ControlService.DEFAULT_TICK);
        assertThat(service.replaceTopology("root", 0, new ControlService.Document("topology.json",
                Fixtures.TOPOLOGY), "")).isInstanceOf(ChangeResult.Applied.class);
        assertThat(service.replaceRules("root", 1, new ControlService.Document("rules.json", Fixtures.RULES), ""))
                .isInstanceOf(ChangeResult.Applied.class);
    }

    @AfterEach
    void close() {
        store.close();
        created.forEach(name -> pg.primary().execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"));
    }

    /** A change of {@code unit} written in cn at the clock's time, in its own transaction. */
    private void writeInCn(String unit) throws SQLException {
        try (Connection tx = databases.get(CN).getConnection()) {
            tx.setAutoCommit(false);
            cnOutbox.append(tx, unit, "wallet", "k-" + sequence, new byte[] {1});
            tx.commit();
        }
    }

    /** Ships cn's changes of {@code unit} to {@code target} and applies them there, as a transport would. */
    private void shipFromCn(Region target, String unit) {
        ChangeApplier applier = ChangeApplier.jdbc(target, databases.get(target), Map.of("wallet", (tx, c) -> { }),
                                                   clock, new SimpleMeterRegistry());
        long applied = applier.positions(CN).getOrDefault(unit, 0L);
        List<ChangeEnvelope> changes = cnOutbox.after(unit, applied, 1_000);
        assertThat(applier.applyAll(changes)).allSatisfy(r -> assertThat(r.consumed()).isTrue());
    }

    /** {@code region} reports its health and the positions its own database holds, read now. */
    private void report(Region region) {
        HealthReport report = new HealthReport(region, sequence++, clock.instant(), RegionHealth.up(), Map.of(),
                List.of(), new JdbcUnitPositions(region, databases.get(region), clock).read());
        assertThat(service.reportHealth("agent", region.id(), new ControlService.Document("health.json",
                HealthReportJson.write(report)))).isInstanceOf(ChangeResult.Applied.class);
    }

    private void reportAll() {
        List.of(CN, EU, US).forEach(this::report);
    }

    /** cn reports a read-only primary (it cannot take writes), and the positions its database still reads. */
    private void reportCnReadOnly() {
        HealthReport report = new HealthReport(CN, sequence++, clock.instant(), new RegionHealth(false, false, -1, 0,
                List.of("pg: read-only (transaction_read_only=on)")), Map.of(), List.of(),
                new JdbcUnitPositions(CN, databases.get(CN), clock).read());
        assertThat(service.reportHealth("agent", "cn", new ControlService.Document("health.json",
                HealthReportJson.write(report)))).isInstanceOf(ChangeResult.Applied.class);
    }

    private UnitLink link(String unit, Region from, Region to) {
        return store.current().unitLinks().stream()
                    .filter(l -> l.unit().equals(unit) && l.from().equals(from) && l.to().equals(to))
                    .findFirst().orElseThrow(() -> new AssertionError("no link " + unit + " " + from + "->" + to
                                                                      + " in " + store.current().unitLinks()));
    }

    private Switchover current() {
        return store.current().switchover();
    }

    @Test
    void twoRegionsReports_giveTheLagPerUnitAndLink() throws SQLException {
        writeInCn("u-sh");
        clock.advance(Duration.ofMillis(200));
        writeInCn("u-sh");
        shipFromCn(US, "u-sh");
        clock.advance(Duration.ofMillis(800));
        reportAll();

        Instant at = T0.plusSeconds(1);
        assertThat(link("u-sh", CN, EU)).isEqualTo(new UnitLink("u-sh", CN, EU, 2, 1_000, true, at));
        assertThat(link("u-sh", CN, US)).isEqualTo(new UnitLink("u-sh", CN, US, 0, 0, true, at));
        assertThat(link("u-bj", CN, EU)).as("a unit of cn with nothing written").isEqualTo(
                new UnitLink("u-bj", CN, EU, 0, 0, true, at));
        assertThat(link("u-de", EU, CN)).isEqualTo(new UnitLink("u-de", EU, CN, 0, 0, true, at));

        assertThat(StateJson.state(store.current()).has("unit_links")).as("derived, never stored").isFalse();
        JsonNode state = StateJson.view(store.current());
        assertThat(state.path("unit_links").toString()).contains("{\"unit\":\"u-sh\",\"from\":\"cn\",\"to\":\"eu\","
                + "\"changes\":2,\"lag_ms\":1000,\"exact\":true,\"measured_at\":\"2026-11-30T14:00:01Z\"}");
        assertThat(state.path("health").path("cn").path("positions").path("written").path("u-sh").path("pending")
                        .asLong()).isEqualTo(2);
        assertThat(StateJson.readHealth(CN, state.path("health").path("cn")).positions())
                .isEqualTo(store.current().health().get(CN).positions());
    }

    @Test
    void aSwitchoverWaitsWhileTheMeasuredLagIsAboveItsBound_andCompletesWhenItDrains() throws SQLException {
        for (int i = 0; i < 3; i++) {
            writeInCn("u-sh");
        }
        clock.advance(Duration.ofSeconds(2));
        reportAll();
        ChangeResult started = service.startSwitchover("ops", new ControlService.SwitchoverRequest(List.of("u-sh"),
                "", "eu", 500, null, Duration.ofSeconds(60), false, false, "drill"));
        assertThat(started).isInstanceOf(ChangeResult.Applied.class);

        service.tick();
        assertThat(current().phase()).isEqualTo(SwitchoverPhase.CATCHING_UP);
        for (int second = 0; second < 3; second++) {
            clock.advance(Duration.ofSeconds(1));
            reportAll();
            service.tick();
            assertThat(current().phase()).as("eu has applied none of u-sh's 3 changes").isEqualTo(
                    SwitchoverPhase.CATCHING_UP);
        }
        assertThat(link("u-sh", CN, EU).lagMs()).isEqualTo(5_000);

        shipFromCn(EU, "u-sh");
        clock.advance(Duration.ofSeconds(1));
        reportAll();
        service.tick();

        assertThat(current().phase()).isEqualTo(SwitchoverPhase.FLIPPED);
        assertThat(current().steps().get(current().steps().size() - 1).detail())
                .startsWith("u-sh caught up in eu (lag 0 ms <= max_lag 500 ms)");
        service.tick();
        assertThat(current().phase()).isEqualTo(SwitchoverPhase.COMPLETED);
        assertThat(store.current().homes()).containsEntry("u-sh", EU);
    }

    @Test
    void withoutPositionsFromTheTarget_theLagIsUnknown_andTheSwitchoverRollsBackSayingSo() throws SQLException {
        writeInCn("u-sh");
        report(CN);
        report(US);
        HealthReport euWithoutPositions = new HealthReport(EU, sequence++, clock.instant(), RegionHealth.up(),
                                                           Map.of());
        service.reportHealth("agent", "eu", new ControlService.Document("health.json",
                HealthReportJson.write(euWithoutPositions)));
        service.startSwitchover("ops", new ControlService.SwitchoverRequest(List.of("u-sh"), "", "eu", 500, null,
                Duration.ofSeconds(5), false, false, "drill"));

        service.tick();
        clock.advance(Duration.ofSeconds(6));
        service.tick();

        assertThat(current().phase()).isEqualTo(SwitchoverPhase.ROLLED_BACK);
        assertThat(current().outcome()).contains("u-sh lag unknown: cn reports no lag of it to eu");
    }

    @Test
    void theFailoverPolicy_switchesAReadOnlyHomesUnitsOverOnTheirMeasuredLag_insteadOfPromotingThem()
            throws SQLException {
        assertThat(service.replaceFailover("root", store.current().revision(), new ControlService.Document(
                "failover.json", "{\"groups\":[{\"name\":\"cn-users\",\"home\":\"cn\",\"mode\":\"automatic\","
                + "\"after\":\"30s\",\"promote_after\":\"2m\",\"timeout\":\"60s\"}]}"), ""))
                .isInstanceOf(ChangeResult.Applied.class);
        writeInCn("u-sh");
        writeInCn("u-sh");
        for (int i = 0; i <= 6; i++) { // cn read-only for 30 s
            reportCnReadOnly();
            report(EU);
            report(US);
            service.tick();
            clock.advance(Duration.ofSeconds(5));
        }
        reportCnReadOnly();
        service.tick();

        assertThat(current()).as("a switchover on measured lag, not a promotion").isNotNull();
        assertThat(current().promotion()).isFalse();
        assertThat(current().requestedBy()).isEqualTo(ControlService.POLICY_ACTOR);
        service.tick();
        assertThat(current().phase()).isEqualTo(SwitchoverPhase.CATCHING_UP);

        shipFromCn(EU, "u-sh");
        reportCnReadOnly();
        report(EU);
        service.tick();
        assertThat(current().phase()).isEqualTo(SwitchoverPhase.FLIPPED);
        service.tick();
        assertThat(current().phase()).isEqualTo(SwitchoverPhase.COMPLETED);
        assertThat(store.current().homes()).containsEntry("u-sh", EU).containsEntry("u-bj", EU);
    }

    @Test
    void aPromotionOfAUnitWhoseHomeStoppedReporting_statesANumericRpo() throws SQLException {
        writeInCn("u-sh");
        clock.advance(Duration.ofMillis(400));
        writeInCn("u-sh");
        writeInCn("u-sh");
        clock.advance(Duration.ofMillis(600));
        reportAll(); // cn's last word: three changes of u-sh, the oldest a second old, none applied in eu

        for (int i = 0; i < 9; i++) { // cn is silent for 90 s; eu and us keep reporting
            clock.advance(Duration.ofSeconds(10));
            report(EU);
            report(US);
            service.tick();
        }
        assertThat(store.current().health().get(CN).freshness()).isEqualTo(HealthEntry.Freshness.EXPIRED);

        ChangeResult promoted = service.startSwitchover("ops", new ControlService.SwitchoverRequest(List.of("u-sh"),
                "", "eu", 0, null, Duration.ofSeconds(60), false, false, "cn is gone", true));

        assertThat(promoted).isInstanceOf(ChangeResult.Applied.class);
        assertThat(current().rpoMs()).containsExactly(Map.entry("u-sh", 1_000L));
        assertThat(current().rpoChanges()).containsExactly(Map.entry("u-sh", 3L));
        assertThat(current().steps().get(0).detail()).endsWith("(RPO u-sh 1000 ms (3 changes))");
        service.tick();
        service.tick();
        assertThat(current().phase()).isEqualTo(SwitchoverPhase.FLIPPED);
        assertThat(StateJson.switchover(current()).path("rpo_changes").path("u-sh").asLong()).isEqualTo(3);
        assertThat(StateJson.readSwitchover(StateJson.switchover(current()))).isEqualTo(current());
    }
}
