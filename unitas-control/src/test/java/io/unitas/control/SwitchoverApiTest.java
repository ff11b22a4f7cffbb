package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.core.switchover.SwitchoverCooldown;
import io.unitas.testkit.MutableClock;

class SwitchoverApiTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(T0);
    private ControlServer server;
    private RawClient admin;
    private RawClient operator;
    private long sequence = 1;

    @BeforeEach
    void start() {
        server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir)).clock(clock)
                              .tick(Duration.ofMillis(20))
                              .healthFreshness(Duration.ofSeconds(10), Duration.ofSeconds(20)).start();
        admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
        operator = RawClient.of(server.uri(), Fixtures.OPERATOR.secret());
        Fixtures.seed(admin, T0, 5_000);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private void reportLag(String region, long lagMs) {
        ControlResponse res = admin.send("PUT", "/api/v1/health/" + region,
                Fixtures.report(region, ++sequence, clock.instant(), true, lagMs), Map.of());
        assertThat(res.status()).isEqualTo(200);
    }

    /** {@code region} reports {@code units}' lag to {@code to}, measured now. */
    private void reportUnitLag(String region, String to, long lagMs, String... units) {
        reportUnitLag(region, to, lagMs, clock.instant(), units);
    }

    private void reportUnitLag(String region, String to, long lagMs, Instant measuredAt, String... units) {
        ControlResponse res = admin.send("PUT", "/api/v1/health/" + region, Fixtures.reportWithUnitLag(region,
                ++sequence, clock.instant(), to, lagMs, measuredAt, units), Map.of());
        assertThat(res.status()).as(res.body()).isEqualTo(200);
    }

    private JsonNode state() {
        return admin.get("/api/v1/state").json();
    }

    private String phase() {
        return state().path("switchover").path("phase").asText();
    }

    private ControlResponse start(String body) {
        return operator.post("/api/v1/switchovers", body);
    }

    @Test
    void aSwitchover_fencesWaitsForTheMovingUnitsLagFromTheirHome_flipsClearsGrayAndUnfences() {
        ControlResponse started = start("{\"units\":[\"u-sh\"],\"target\":\"eu\","
                                        + "\"deadline\":\"" + T0.plusSeconds(60) + "\",\"reason\":\"drill\"}");
        assertThat(started.status()).isEqualTo(202);
        assertThat(started.json().path("switchover").path("id").asText()).isEqualTo("sw-1");
        assertThat(started.json().path("switchover").path("max_lag_ms").asLong()).isZero();
        assertThat(started.json().path("switchover").path("max_lag").asText()).isEqualTo("0s");

        Fixtures.awaitEquals("phase", WAIT, this::phase, "catching_up");
        JsonNode fenced = state();
        assertThat(fenced.path("fences").path("u-sh").path("switchover").asText()).isEqualTo("sw-1");
        assertThat(fenced.path("rules").path("units").get(0).path("region").asText()).isEqualTo("cn");

        reportLag("eu", 0); // the target database's own lag is not what the move waits on
        reportUnitLag("cn", "eu", 0, "u-bj"); // nor another unit's
        reportUnitLag("cn", "us", 0, "u-sh"); // nor this unit's to another region
        reportUnitLag("cn", "eu", 800, "u-sh");
        clock.advance(Duration.ofSeconds(1));
        reportUnitLag("cn", "eu", 800, "u-sh");
        assertThat(phase()).isEqualTo("catching_up");
        reportUnitLag("cn", "eu", 0, "u-sh");
        Fixtures.awaitEquals("phase", WAIT, this::phase, "completed");

        JsonNode done = state();
        assertThat(done.path("rules").path("units").get(0).path("region").asText()).isEqualTo("eu");
        assertThat(done.path("rules").path("gray").fieldNames()).toIterable().containsExactly("u-de");
        assertThat(done.path("fences").size()).isZero();
        assertThat(done.path("switchover").path("steps").findValuesAsText("phase"))
                .containsExactly("fencing", "catching_up", "flipped", "completed");
        assertThat(done.path("switchover").path("steps").get(2).path("detail").asText())
                .isEqualTo("u-sh caught up in eu (lag 0 ms <= max_lag 0 ms); home of u-sh is now eu");
        assertThat(done.path("health").path("cn").path("unit_lag").path("u-sh").path("eu").path("lag_ms").asLong())
                .isZero();
        assertThat(admin.get("/api/v1/audit").json().path("entries").findValuesAsText("action"))
                .containsSequence("switchover.step", "switchover.step", "switchover.step");
        assertThat(admin.get("/api/v1/switchovers/sw-1").json().path("phase").asText()).isEqualTo("completed");
    }

    @Test
    void aCaughtUpMeasurementOlderThanTheHealthTtl_doesNotCount_evenInAFreshReport() {
        start("{\"units\":[\"u-sh\"],\"target\":\"eu\",\"deadline\":\"" + T0.plusSeconds(60) + "\"}");
        Fixtures.awaitEquals("phase", WAIT, this::phase, "catching_up");
        clock.advance(Duration.ofSeconds(11));
        reportLag("eu", 0);
        reportUnitLag("cn", "eu", 0, T0, "u-sh"); // a fresh report carrying an 11 s old measurement

        // Had it counted, the switchover would have flipped at the next tick, deadline or not. Every report stays
        // fresh on the way to the deadline, so the old measurement is the only thing it can roll back on.
        for (int i = 0; i < 50; i++) {
            clock.advance(Duration.ofSeconds(1));
            reportLag("eu", 0);
            reportUnitLag("cn", "eu", 0, T0, "u-sh");
        }
        Fixtures.awaitEquals("phase", WAIT, this::phase, "rolled_back");

        assertThat(state().path("switchover").path("outcome").asText()).isEqualTo("deadline " + T0.plusSeconds(60)
                + " passed: u-sh lag unknown: cn measured it at " + T0 + ", more than 10000 ms ago; fences lifted, "
                + "mapping unchanged");
    }

    @Test
    void aPromotion_movesWithoutWaiting_andRecordsEachUnitsLastKnownLagAsItsRpo() {
        reportUnitLag("cn", "eu", 1_200, "u-sh");
        clock.advance(Duration.ofSeconds(31)); // cn falls silent: its report expires
        reportLag("eu", -1);
        reportLag("us", -1);
        Fixtures.await("cn expired", WAIT, () -> state().path("health").path("cn").path("freshness").asText()
                                                        .equals("expired"));

        ControlResponse res = start("{\"units\":[\"u-sh\",\"u-bj\"],\"target\":\"eu\",\"promote\":true,"
                                    + "\"reason\":\"cn is gone\"}");

        assertThat(res.status()).as(res.body()).isEqualTo(202);
        assertThat(res.json().path("switchover").path("rpo_ms").toString()).isEqualTo("{\"u-sh\":1200,\"u-bj\":-1}");
        Fixtures.awaitEquals("phase", WAIT, this::phase, "completed");
        JsonNode done = state();
        assertThat(done.path("rules").path("units").get(0).path("region").asText()).isEqualTo("eu");
        assertThat(done.path("rules").path("units").get(1).path("region").asText()).isEqualTo("eu");
        assertThat(done.path("fences").size()).isZero();
        assertThat(done.path("switchover").path("steps").get(2).path("detail").asText())
                .startsWith("promoted without waiting on lag (RPO u-sh 1200 ms, u-bj unknown)");
        JsonNode audit = admin.get("/api/v1/audit").json().path("entries");
        assertThat(audit.findValuesAsText("action")).contains("switchover.promote");
        assertThat(audit.findValuesAsText("detail")).anyMatch(d -> d.contains("RPO u-sh 1200 ms, u-bj unknown"));
    }

    @Test
    void aPromotionToATargetThatCannotTakeWrites_isRefused() {
        admin.send("PUT", "/api/v1/health/eu", Fixtures.report("eu", ++sequence, T0, false, 0), Map.of());

        ControlResponse res = start("{\"units\":[\"u-sh\"],\"target\":\"eu\",\"promote\":true}");

        assertThat(res.status()).isEqualTo(409);
        assertThat(res.json().path("problems").get(0).path("path").asText()).isEqualTo("target");
    }

    @Test
    void aSwitchoverPastItsDeadline_rollsBack_liftingFencesAndKeepingTheMapping() {
        start("{\"units\":[\"u-sh\",\"u-bj\"],\"target\":\"eu\",\"max_lag_ms\":500,\"deadline\":\""
              + T0.plusSeconds(30) + "\"}");
        Fixtures.awaitEquals("phase", WAIT, this::phase, "catching_up");
        assertThat(state().path("fences").size()).isEqualTo(2);

        clock.advance(Duration.ofSeconds(31));
        Fixtures.awaitEquals("phase", WAIT, this::phase, "rolled_back");

        JsonNode after = state();
        assertThat(after.path("fences").size()).isZero();
        assertThat(after.path("rules").path("units").get(0).path("region").asText()).isEqualTo("cn");
        assertThat(after.path("rules").path("gray").has("u-sh")).isTrue();
        assertThat(after.path("switchover").path("outcome").asText())
                .isEqualTo("deadline 2026-11-30T14:00:30Z passed: u-sh lag unknown: no fresh health report from its "
                           + "home cn; "
                           + "fences lifted, mapping unchanged");
    }

    @Test
    void aDryRun_showsThePlanAndChangesNothing() {
        long before = server.revision();

        ControlResponse res = start("{\"drain\":\"cn\",\"dry_run\":true}");

        assertThat(res.status()).isEqualTo(200);
        JsonNode plan = res.json().path("plan");
        assertThat(plan.path("target").asText()).isEqualTo("eu");
        assertThat(plan.path("moves").findValuesAsText("unit")).containsExactly("u-sh", "u-bj");
        assertThat(plan.path("load").path("eu").path("before").asDouble()).isEqualTo(300);
        assertThat(plan.path("load").path("eu").path("after").asDouble()).isEqualTo(500);
        assertThat(server.revision()).isEqualTo(before);
    }

    @Test
    void anOverloadingPlan_isRefusedWith409_unlessForced() {
        String body = "{\"units\":[\"u-sh\",\"u-bj\",\"u-ny\"],\"target\":\"eu\"";

        ControlResponse refused = start(body + "}");
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.json().path("type").asText()).isEqualTo("urn:unitas:problem:switchover-refused");
        assertThat(refused.json().path("problems").get(0).path("message").asText())
                .isEqualTo("eu would serve 600 of capacity 500 (expected: <= capacity, or force)");

        ControlResponse forced = start(body + ",\"force\":true}");
        assertThat(forced.status()).isEqualTo(202);
        assertThat(forced.json().path("plan").path("warnings")).hasSize(1);
    }

    @Test
    void onlyOneSwitchoverRunsAtATime_andOneCanBeAbortedBeforeTheFlip() {
        start("{\"units\":[\"u-sh\"],\"target\":\"eu\"}");
        Fixtures.awaitEquals("phase", WAIT, this::phase, "catching_up");

        ControlResponse second = start("{\"units\":[\"u-ny\"],\"target\":\"eu\"}");
        assertThat(second.status()).isEqualTo(409);
        assertThat(second.json().path("detail").asText()).contains("one at a time");

        ControlResponse aborted = operator.post("/api/v1/switchovers/sw-1/abort", "{\"reason\":\"wrong unit\"}");
        assertThat(aborted.status()).isEqualTo(200);
        assertThat(phase()).isEqualTo("aborted");
        assertThat(state().path("fences").size()).isZero();
        assertThat(operator.post("/api/v1/switchovers/sw-1/abort", "{}").status()).isEqualTo(409);
    }

    @Test
    void anOperatorsFenceOnAMovingUnit_outlivesTheSwitchover() {
        operator.post("/api/v1/fences", "{\"units\":[\"u-sh\"],\"reason\":\"db repair\"}");
        reportUnitLag("cn", "eu", 0, "u-sh", "u-bj");

        start("{\"units\":[\"u-sh\",\"u-bj\"],\"target\":\"eu\"}");
        Fixtures.awaitEquals("phase", WAIT, this::phase, "completed");

        JsonNode fences = state().path("fences");
        assertThat(fences.path("u-sh").path("reason").asText()).isEqualTo("db repair");
        assertThat(fences.has("u-bj")).isFalse();
    }

    @Test
    void aTargetThatIsNotHealthy_isRefused() {
        admin.send("PUT", "/api/v1/health/eu", Fixtures.report("eu", ++sequence, T0, false, 0), Map.of());

        ControlResponse res = start("{\"units\":[\"u-sh\"],\"target\":\"eu\",\"force\":true}");

        assertThat(res.status()).isEqualTo(409);
        assertThat(res.json().path("problems").get(0).path("path").asText()).isEqualTo("target");
    }

    @Test
    void aSecondSwitchoverOfAUnitWithinTheCooldown_isRefused_namingTheUnitAndWhenItMayMove() {
        reportUnitLag("cn", "eu", 0, "u-sh");
        start("{\"units\":[\"u-sh\"],\"target\":\"eu\"}");
        Fixtures.awaitEquals("phase", WAIT, this::phase, "completed");
        reportLag("cn", 0);

        ControlResponse back = start("{\"units\":[\"u-sh\"],\"target\":\"cn\"}");

        assertThat(back.status()).isEqualTo(409);
        JsonNode problem = back.json().path("problems").get(0);
        assertThat(problem.path("path").asText()).isEqualTo("units[0]");
        assertThat(problem.path("message").asText())
                .startsWith("unit 'u-sh' moved to eu at " + T0 + " (switchover sw-1); it may move again at "
                            + T0.plus(SwitchoverCooldown.DEFAULT.cooldown()));

        clock.advance(SwitchoverCooldown.DEFAULT.cooldown());
        reportLag("cn", 0);
        assertThat(start("{\"units\":[\"u-sh\"],\"target\":\"cn\"}").status()).isEqualTo(202);
    }
}
