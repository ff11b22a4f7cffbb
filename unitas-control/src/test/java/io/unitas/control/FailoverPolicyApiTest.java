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

import io.unitas.testkit.MutableClock;

/**
 * The failover policy on the control plane's controlled clock, with health reports pushed through the API: a home
 * that stays read-only has its units switched over on their measured lag, one that falls silent has them promoted
 * with their RPO, and a group that asks gets a proposal an operator accepts.
 */
class FailoverPolicyApiTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String POLICY = "{\"groups\":[{\"name\":\"cn-users\",\"home\":\"cn\",\"mode\":\"%s\","
                                         + "\"after\":\"30s\",\"promote_after\":\"2m\",\"timeout\":\"60s\"}]}";

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
        Fixtures.seed(admin, T0, 0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private void applyPolicy(String mode) {
        ControlResponse res = admin.send("PUT", "/api/v1/failover", POLICY.formatted(mode),
                Map.of("If-Match", "\"" + admin.get("/api/v1/state").revision() + "\""));
        assertThat(res.status()).as(res.body()).isEqualTo(200);
    }

    /** cn read-only (its database refuses writes) but reporting, with u-sh and u-bj {@code lagMs} behind in eu. */
    private void reportCnReadOnly(long lagMs) {
        String report = Fixtures.reportWithUnitLag("cn", ++sequence, clock.instant(), "eu", lagMs, clock.instant(),
                                                   "u-sh", "u-bj").replace("\"writable\":true", "\"writable\":false");
        assertThat(admin.send("PUT", "/api/v1/health/cn", report, Map.of()).status()).isEqualTo(200);
    }

    /** cn writable and reporting, with u-sh and u-bj {@code lagMs} behind in eu. */
    private void reportCnWell(long lagMs) {
        String report = Fixtures.reportWithUnitLag("cn", ++sequence, clock.instant(), "eu", lagMs, clock.instant(),
                                                   "u-sh", "u-bj");
        assertThat(admin.send("PUT", "/api/v1/health/cn", report, Map.of()).status()).isEqualTo(200);
    }

    private void reportWell(String... regions) {
        for (String region : regions) {
            assertThat(admin.send("PUT", "/api/v1/health/" + region, Fixtures.report(region, ++sequence,
                    clock.instant(), true, 0), Map.of()).status()).isEqualTo(200);
        }
    }

    /** Moves the clock in steps shorter than the health TTL, {@code regions} reporting after each. */
    private void pass(Duration d, Runnable reports) {
        for (Duration left = d; !left.isZero(); ) {
            Duration step = left.compareTo(Duration.ofSeconds(5)) < 0 ? left : Duration.ofSeconds(5);
            clock.advance(step);
            left = left.minus(step);
            reports.run();
        }
    }

    private JsonNode state() {
        return admin.get("/api/v1/state").json();
    }

    private String phase() {
        return state().path("switchover").path("phase").asText();
    }

    /** Waits until the control plane has recorded {@code region}'s fault, as starting now (the clock stands). */
    private void awaitFault(String region) {
        Fixtures.await(region + " recorded as faulted", WAIT, () -> state().path("faults").has(region));
        assertThat(state().path("faults").path(region).asText()).isEqualTo(clock.instant().toString());
    }

    @Test
    void automatic_aHomeThatStaysReadOnly_hasItsUnitsSwitchedOverOnTheirLag_afterAfter() {
        applyPolicy("automatic");
        reportCnReadOnly(900);
        awaitFault("cn");

        pass(Duration.ofSeconds(25), () -> {
            reportCnReadOnly(900);
            reportWell("eu", "us");
        });
        assertThat(state().path("switchover").isNull()).as("before after: nothing moves").isTrue();
        pass(Duration.ofSeconds(5), () -> {
            reportCnReadOnly(900);
            reportWell("eu", "us");
        });

        Fixtures.awaitEquals("phase", WAIT, this::phase, "catching_up");
        JsonNode sw = state().path("switchover");
        assertThat(sw.path("requested_by").asText()).isEqualTo("failover-policy");
        assertThat(sw.path("units").toString()).isEqualTo("[\"u-sh\",\"u-bj\"]");
        assertThat(sw.path("target").asText()).isEqualTo("eu");
        assertThat(sw.path("reason").asText()).isEqualTo("group cn-users: cn unwritable since " + T0
                                                         + " (30000 ms >= after 30000 ms)");
        assertThat(sw.has("rpo_ms")).isFalse();

        reportCnReadOnly(0);
        Fixtures.awaitEquals("phase", WAIT, this::phase, "completed");
        assertThat(state().path("rules").path("units").get(0).path("region").asText()).isEqualTo("eu");
        assertThat(state().path("rules").path("units").get(1).path("region").asText()).isEqualTo("eu");
    }

    @Test
    void automatic_aHomeThatFallsSilent_hasItsUnitsPromotedAfterPromoteAfter_withTheirLastKnownLagAsRpo() {
        applyPolicy("automatic");
        reportCnReadOnly(700); // its last word: then it is gone
        awaitFault("cn");

        pass(Duration.ofSeconds(115), () -> reportWell("eu", "us"));
        assertThat(state().path("switchover").isNull()).as("unreachable: no lag can drain, no promotion yet")
                                                       .isTrue();
        pass(Duration.ofSeconds(5), () -> reportWell("eu", "us"));

        Fixtures.awaitEquals("phase", WAIT, this::phase, "completed");
        JsonNode sw = state().path("switchover");
        assertThat(sw.path("rpo_ms").toString()).isEqualTo("{\"u-sh\":700,\"u-bj\":700}");
        assertThat(sw.path("requested_by").asText()).isEqualTo("failover-policy");
        assertThat(sw.path("reason").asText()).contains("cn unreachable since").contains("promote_after 120000 ms");
        assertThat(admin.get("/api/v1/audit").json().path("entries").findValuesAsText("action"))
                .contains("switchover.promote");
    }

    @Test
    void automatic_aWritableHomeThatFallsSilent_isPromotedPromoteAfterItsLastReport_notAfterItWasTakenDown() {
        applyPolicy("automatic");
        Instant lastReport = clock.instant();
        reportCnWell(700); // its last word: then it is gone, and only its report's expiry says so
        pass(Duration.ofSeconds(35), () -> reportWell("eu", "us"));
        Fixtures.await("cn recorded as faulted", WAIT, () -> state().path("faults").has("cn"));
        assertThat(state().path("faults").path("cn").asText()).as("unreachable since it was last heard from")
                                                              .isEqualTo(lastReport.toString());

        pass(Duration.ofSeconds(80), () -> reportWell("eu", "us"));
        assertThat(state().path("switchover").isNull()).as("115 s without a word: no promotion yet").isTrue();
        pass(Duration.ofSeconds(5), () -> reportWell("eu", "us"));

        Fixtures.awaitEquals("phase", WAIT, this::phase, "completed");
        JsonNode sw = state().path("switchover");
        assertThat(sw.path("rpo_ms").toString()).isEqualTo("{\"u-sh\":700,\"u-bj\":700}");
        assertThat(sw.path("reason").asText()).isEqualTo("group cn-users: cn unreachable since " + lastReport
                                                         + " (120000 ms >= promote_after 120000 ms)");
    }

    @Test
    void automatic_aHomeSilentSinceBeforeARestart_countsItsSilenceFromWhenTheNewLeaderLed() {
        applyPolicy("automatic");
        reportCnWell(700);
        server.close();
        clock.advance(Duration.ofMinutes(10)); // the control plane is down far longer than promote_after
        Instant restarted = clock.instant();
        server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir)).clock(clock)
                              .tick(Duration.ofMillis(20))
                              .healthFreshness(Duration.ofSeconds(10), Duration.ofSeconds(20)).start();
        admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
        reportWell("eu", "us");
        pass(Duration.ofSeconds(35), () -> reportWell("eu", "us"));
        Fixtures.await("cn recorded as faulted", WAIT, () -> state().path("faults").has("cn"));

        assertThat(state().path("faults").path("cn").asText())
                .as("a leader hears nothing before it leads: cn's silence counts from then")
                .isEqualTo(restarted.toString());
        assertThat(state().path("switchover").isNull()).as("no promotion on the silence of a control plane")
                                                       .isTrue();
        pass(Duration.ofSeconds(85), () -> reportWell("eu", "us"));
        Fixtures.awaitEquals("phase", WAIT, this::phase, "completed");
        assertThat(state().path("switchover").path("reason").asText()).contains("cn unreachable since " + restarted);
    }

    @Test
    void automatic_aHomeThatReportsNoLagOfItsUnits_isNotFencedForASwitchoverThatCouldNotDrain_butPromoted() {
        applyPolicy("automatic");
        Runnable reports = () -> { // cn's database stopped answering: it reports, but measures no lag
            assertThat(admin.send("PUT", "/api/v1/health/cn", Fixtures.report("cn", ++sequence, clock.instant(),
                    false, -1), Map.of()).status()).isEqualTo(200);
            reportWell("eu", "us");
        };
        reports.run();
        awaitFault("cn");

        pass(Duration.ofSeconds(115), reports);
        assertThat(state().path("switchover").isNull()).as("no lag to wait on: no switchover, no fence").isTrue();
        assertThat(state().path("fences").size()).isZero();
        pass(Duration.ofSeconds(5), reports);

        Fixtures.awaitEquals("phase", WAIT, this::phase, "completed");
        JsonNode sw = state().path("switchover");
        assertThat(sw.path("reason").asText()).isEqualTo("group cn-users: cn unwritable since " + T0
                                                         + " (120000 ms >= promote_after 120000 ms)");
        assertThat(state().path("rules").path("units").get(0).path("region").asText()).isEqualTo("eu");
    }

    @Test
    void automatic_aSwitchoverThatCannotDrain_givesWayToAPromotionAsSoonAsPromoteAfterAllows_notAfterTheRetryPause() {
        String policy = "{\"groups\":[{\"name\":\"cn-users\",\"home\":\"cn\",\"mode\":\"automatic\","
                        + "\"after\":\"30s\",\"promote_after\":\"40s\",\"timeout\":\"5s\"}]}";
        ControlResponse res = admin.send("PUT", "/api/v1/failover", policy,
                Map.of("If-Match", "\"" + admin.get("/api/v1/state").revision() + "\""));
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        reportCnReadOnly(900); // cn still reports, but its lag never drains: its link is stuck
        awaitFault("cn");
        Runnable reports = () -> {
            reportCnReadOnly(900);
            reportWell("eu", "us");
        };
        pass(Duration.ofSeconds(30), reports);
        Fixtures.awaitEquals("phase", WAIT, this::phase, "catching_up");
        pass(Duration.ofSeconds(6), reports);
        Fixtures.awaitEquals("phase", WAIT, this::phase, "rolled_back");

        // 40 s into the fault: the retry pause (after, 30 s) would hold the next attempt until 60 s.
        pass(Duration.ofSeconds(4), reports);

        Fixtures.awaitEquals("phase", WAIT, this::phase, "completed");
        JsonNode sw = state().path("switchover");
        assertThat(sw.path("rpo_ms").toString()).isEqualTo("{\"u-sh\":900,\"u-bj\":900}");
        assertThat(sw.path("reason").asText()).contains("promote_after 40000 ms");
    }

    @Test
    void ask_recordsAProposal_thatAnOperatorAccepts() {
        applyPolicy("ask");
        reportCnReadOnly(0);
        awaitFault("cn");
        pass(Duration.ofSeconds(30), () -> {
            reportCnReadOnly(0);
            reportWell("eu", "us");
        });

        Fixtures.await("a proposal", WAIT, () -> state().path("proposals").size() == 1);
        JsonNode proposal = state().path("proposals").get(0);
        assertThat(proposal.path("id").asText()).isEqualTo("cn-users@cn");
        assertThat(proposal.path("to").asText()).isEqualTo("eu");
        assertThat(proposal.path("promote").asBoolean()).isFalse();
        assertThat(state().path("switchover").isNull()).isTrue();
        assertThat(admin.get("/api/v1/audit").json().path("entries").findValuesAsText("detail"))
                .anyMatch(d -> d.startsWith("proposed cn-users@cn: move u-sh, u-bj to eu")
                               && d.endsWith("accept with: unitas ctl accept cn-users@cn)"));

        ControlResponse accepted = operator.post("/api/v1/proposals/cn-users@cn/accept", "{}");

        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        assertThat(accepted.json().path("switchover").path("requested_by").asText()).isEqualTo("ops");
        Fixtures.awaitEquals("phase", WAIT, this::phase, "completed");
        assertThat(state().path("proposals").size()).isZero();
        assertThat(operator.post("/api/v1/proposals/cn-users@cn/accept", "{}").status()).isEqualTo(404);
    }

    @Test
    void aPolicyNamingAnUnknownRegion_isRefusedWithItsPath_andTheOldOneStays() {
        ControlResponse res = admin.send("PUT", "/api/v1/failover", "{\"groups\":[{\"name\":\"g\",\"home\":\"mars\","
                + "\"mode\":\"automatic\",\"after\":\"30s\"}]}", Map.of("If-Match", "\""
                + admin.get("/api/v1/state").revision() + "\""));

        assertThat(res.status()).isEqualTo(422);
        assertThat(res.json().path("problems").get(0).path("path").asText()).isEqualTo("groups[0].home");
        assertThat(state().path("failover").path("groups").size()).isZero();
    }

    @Test
    void rulesThatWouldDropAUnitThePolicyNames_areRefused_keepingTheOldRules() {
        ControlResponse applied = admin.send("PUT", "/api/v1/failover", "{\"groups\":[{\"name\":\"g\","
                + "\"units\":[\"u-ny\"],\"mode\":\"ask\",\"after\":\"30s\"}]}", Map.of("If-Match", "\""
                + admin.get("/api/v1/state").revision() + "\""));
        assertThat(applied.status()).as(applied.body()).isEqualTo(200);
        String withoutNy = Fixtures.RULES.replace(",{\"id\":\"u-ny\",\"region\":\"us\",\"load\":100}", "")
                                         .replace("\"unit\":\"u-ny\"", "\"unit\":\"u-de\"");

        ControlResponse res = admin.put("/api/v1/rules", withoutNy, admin.get("/api/v1/state").revision());

        assertThat(res.status()).as(res.body()).isEqualTo(422);
        assertThat(res.json().path("problems").get(0).path("path").asText()).isEqualTo("groups[0].units[0]");
        assertThat(state().path("rules").path("units").size()).isEqualTo(4);
    }
}
