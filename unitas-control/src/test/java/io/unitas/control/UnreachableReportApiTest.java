package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.testkit.MutableClock;

/**
 * {@code POST /api/v1/health/{region}/unreachable}: who may send it, what it refuses and naming what, and what it
 * does: a stale region another region cannot reach goes down before its grace, a fresh one stays up.
 */
class UnreachableReportApiTest {

    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    private static final ControlToken GATEWAY_EU = ControlToken.generate("gateway-eu", Role.OBSERVER, "eu");
    private static final ControlToken GATEWAYS = ControlToken.generate("gateways", Role.OBSERVER);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(T0);

    private ControlServer start() throws Exception {
        Path tokens = Fixtures.tokensFile(dir);
        Files.writeString(tokens, Files.readString(tokens) + GATEWAY_EU.fileLine() + "\n" + GATEWAYS.fileLine()
                                  + "\n");
        ControlServer server = ControlServer.builder().port(0).dataDir(dir).tokens(tokens).clock(clock)
                                            .tick(Duration.ofMillis(20))
                                            .healthFreshness(Duration.ofSeconds(2), Duration.ofSeconds(10)).start();
        Fixtures.seed(RawClient.of(server.uri(), Fixtures.ADMIN.secret()), T0, 50);
        return server;
    }

    @Test
    void aStaleRegionUnreachableFromAnother_goesDownBeforeItsGrace_andTheMetricCountsIt() throws Exception {
        try (ControlServer server = start()) {
            RawClient admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
            RawClient gateway = RawClient.of(server.uri(), GATEWAY_EU.secret());
            clock.advance(Duration.ofMillis(2100));
            Fixtures.awaitEquals("cn freshness", Duration.ofSeconds(5), () -> freshness(admin, "cn"), "stale");

            ControlResponse res = unreachable(gateway, "cn", "eu");

            assertThat(res.status()).as(res.body()).isEqualTo(200);
            assertThat(res.json().path("counted").asBoolean()).isTrue();
            Fixtures.awaitEquals("cn freshness", Duration.ofSeconds(5), () -> freshness(admin, "cn"), "expired");
            assertThat(admin.get("/api/v1/state").json().path("health").path("cn").path("healthy").asBoolean()).isFalse();
            assertThat(freshness(admin, "us")).as("no one said us is unreachable: its grace runs").isEqualTo("stale");
            assertThat(admin.get("/api/v1/audit?after=" + 0 + "&limit=" + 1000).json().path("entries").findValuesAsText("detail"))
                    .anyMatch(d -> d.startsWith("cn expired") && d.contains("unreachable from eu"));
            String metrics = admin.get("/metrics").body();
            assertThat(metrics).containsPattern("unitas_control_unreachable_reports_total\\{[^}]*observer=\"eu\""
                                                + "[^}]*region=\"cn\"[^}]*result=\"counted\"[^}]*} 1\\.0")
                               .containsPattern("unitas_control_regions_down_by_evidence_total\\{region=\"cn\"} 1\\.0");

            Fixtures.putHealth(admin, "cn", Fixtures.report("cn", 2, clock.instant(), true, 50));
            assertThat(freshness(admin, "cn")).as("a new report brings it back").isEqualTo("fresh");
        }
    }

    @Test
    void aFreshRegion_staysUpWhateverAPeerSays() throws Exception {
        try (ControlServer server = start()) {
            RawClient admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
            clock.advance(Duration.ofMillis(1000));
            Fixtures.assertOk(Fixtures.putHealth(admin, "cn", Fixtures.report("cn", 2, clock.instant(), true, 50)));
            clock.advance(Duration.ofMillis(500));
            assertThat(RawClient.of(server.uri(), GATEWAY_EU.secret()).reportUnreachable("cn", "eu").counted())
                    .as("typed: the evidence counted").isTrue();
            clock.advance(Duration.ofMillis(600)); // eu and us: 2.1 s since their reports; cn: 1.1 s

            Fixtures.awaitEquals("us freshness", Duration.ofSeconds(5), () -> freshness(admin, "us"), "stale");
            assertThat(freshness(admin, "cn")).as("a partition between two regions is no region failure")
                                              .isEqualTo("fresh");
            assertThat(admin.get("/api/v1/state").json().path("health").path("cn").path("healthy").asBoolean()).isTrue();
        }
    }

    @Test
    void whoMayReport_andWhatIsRefused_namingTheField() throws Exception {
        try (ControlServer server = start()) {
            RawClient gateway = RawClient.of(server.uri(), GATEWAY_EU.secret());
            RawClient anyGateway = RawClient.of(server.uri(), GATEWAYS.secret());

            assertThat(unreachable(RawClient.of(server.uri(), null), "cn", "eu").status()).isEqualTo(401);
            ControlResponse viewer = unreachable(RawClient.of(server.uri(), Fixtures.VIEWER.secret()), "cn", "eu");
            assertThat(viewer.status()).isEqualTo(403);
            assertThat(viewer.problem().orElseThrow().detail()).contains("expected: observer or above");

            ControlResponse otherObserver = unreachable(gateway, "cn", "us");
            assertThat(otherObserver.status()).isEqualTo(403);
            assertThat(otherObserver.problem().orElseThrow().detail()).contains("speaks for region eu only");

            assertBadObserver(anyGateway.post("/api/v1/health/cn/unreachable", "{}"), "missing");
            assertBadObserver(anyGateway.post("/api/v1/health/cn/unreachable", "{\"observer\": 5}"),
                              "expected: a region id, as a string");
            assertBadObserver(unreachable(anyGateway, "cn", "mars"),
                              "'mars' (expected: a region of the topology: cn, eu, us)");
            assertThat(anyGateway.post("/api/v1/health/cn/unreachable", "[1,").status()).isEqualTo(400);

            ControlResponse unknown = unreachable(gateway, "mars", "eu");
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.problem().orElseThrow().detail()).isEqualTo("region 'mars': not in the topology");

            ControlResponse bound = gateway.post("/api/v1/health/cn/unreachable", "{\"observer\": null}");
            assertThat(bound.status()).as("a bound token's region is the observer").isEqualTo(200);
            assertThat(bound.json().path("observer").asText()).isEqualTo("eu");

            ControlResponse self = unreachable(gateway, "eu", "eu");
            assertThat(self.status()).isEqualTo(200);
            assertThat(self.json().path("counted").asBoolean()).isFalse();
            assertThat(self.json().path("detail").asText()).contains("about itself is ignored");
        }
    }

    private static void assertBadObserver(ControlResponse res, String message) {
        assertThat(res.status()).as(res.body()).isEqualTo(400);
        JsonNode problems = res.json().path("problems");
        assertThat(problems.get(0).path("path").asText()).isEqualTo("observer");
        assertThat(problems.get(0).path("message").asText()).contains(message);
    }

    /** {@code POST /api/v1/health/{region}/unreachable} from {@code observer}, raw: its refusals are the point. */
    private static ControlResponse unreachable(RawClient client, String region, String observer) {
        return client.post("/api/v1/health/" + region + "/unreachable", "{\"observer\":\"" + observer + "\"}");
    }

    private static String freshness(RawClient client, String region) {
        return client.get("/api/v1/state").json().path("health").path(region).path("freshness").asText();
    }

}
