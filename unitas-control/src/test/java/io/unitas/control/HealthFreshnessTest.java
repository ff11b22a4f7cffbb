package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.control.HealthEntry.Freshness;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.testkit.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

class HealthFreshnessTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");

    @TempDir
    Path dir;

    @Test
    void healthReports_feedTheTable_andGoStaleThenUnhealthyWithoutReports() {
        MutableClock clock = new MutableClock(T0);
        try (ControlServer server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir))
                                                 .clock(clock).tick(Duration.ofMillis(20))
                                                 .healthFreshness(Duration.ofSeconds(10), Duration.ofSeconds(20))
                                                 .start()) {
            RawClient admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
            Fixtures.seed(admin, T0, 50);
            JsonNode cn = admin.get("/api/v1/state").json().path("health").path("cn");
            assertThat(cn.path("healthy").asBoolean()).isTrue();
            assertThat(cn.path("freshness").asText()).isEqualTo("fresh");
            assertThat(cn.path("checks").path("pg-primary").path("latency_ms").asInt()).isEqualTo(3);

            clock.advance(Duration.ofSeconds(11));
            Fixtures.awaitEquals("cn freshness", Duration.ofSeconds(5), () -> freshness(admin), "stale");
            assertThat(admin.get("/api/v1/state").json().path("health").path("cn").path("healthy").asBoolean())
                    .isTrue();

            clock.advance(Duration.ofSeconds(20));
            Fixtures.awaitEquals("cn freshness", Duration.ofSeconds(5), () -> freshness(admin), "expired");
            JsonNode expired = admin.get("/api/v1/state").json().path("health").path("cn");
            assertThat(expired.path("healthy").asBoolean()).isFalse();
            assertThat(expired.path("reasons").get(0).asText())
                    .isEqualTo("health report expired: last received 2026-11-30T14:00:00Z");
            assertThat(admin.get("/api/v1/audit").json().path("entries").findValuesAsText("detail"))
                    .anyMatch(d -> d.startsWith("cn expired"));
        }
    }

    /**
     * A control plane that was down heard nothing while it was down; that is no evidence a region died. Restarted on
     * its data long after the last reports, it gives every region the TTL and the grace from its own start to push
     * again (as etcd renews leases on a new leader), instead of expiring them all at its first tick and answering
     * "no healthy region" for every user until the agents' retries come round.
     */
    @Test
    void aRestartedControlPlane_expiresNoReportBeforeTheRegionsHadTtlAndGraceToPushAgain() {
        MutableClock clock = new MutableClock(T0);
        ControlServer.Builder builder = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir))
                                                     .clock(clock).tick(Duration.ofMillis(20))
                                                     .healthFreshness(Duration.ofSeconds(10), Duration.ofSeconds(20));
        try (ControlServer server = builder.start()) {
            Fixtures.seed(RawClient.of(server.uri(), Fixtures.ADMIN.secret()), T0, 50);
        }
        clock.advance(Duration.ofMinutes(1)); // down for a minute: every report is older than TTL + grace
        try (ControlServer server = builder.start()) {
            RawClient admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
            Fixtures.awaitEquals("cn freshness", Duration.ofSeconds(5), () -> freshness(admin), "stale");
            assertThat(admin.get("/api/v1/state").json().path("health").path("cn").path("healthy").asBoolean())
                    .as("healthy while the regions may still push").isTrue();

            clock.advance(Duration.ofSeconds(31)); // TTL + grace (30 s) since the restart
            Fixtures.awaitEquals("cn freshness", Duration.ofSeconds(5), () -> freshness(admin), "expired");
        }
    }

    /** The rule the restarted control plane applies, at its edges: stale until TTL + grace after it began to lead. */
    @Test
    void aReportOlderThanTheLeader_expiresTtlAndGraceAfterTheLeaderBegan_notAfterTheReport() {
        Duration ttl = Duration.ofSeconds(10);
        Duration grace = Duration.ofSeconds(20);
        Instant leading = T0.plus(Duration.ofMinutes(1));

        assertThat(HealthEntry.freshness(T0, leading, leading, ttl, grace, ttl, Optional.empty(), Freshness.FRESH))
                .as("at the restart").isEqualTo(Freshness.STALE);
        assertThat(HealthEntry.freshness(T0, leading, leading.plusSeconds(29), ttl, grace, ttl, Optional.empty(),
                                         Freshness.FRESH))
                .as("29 s after the restart").isEqualTo(Freshness.STALE);
        assertThat(HealthEntry.freshness(T0, leading, leading.plusSeconds(31), ttl, grace, ttl, Optional.empty(),
                                         Freshness.STALE))
                .as("31 s after the restart").isEqualTo(Freshness.EXPIRED);
        assertThat(HealthEntry.freshness(T0, T0, leading, ttl, grace, ttl, Optional.empty(), Freshness.FRESH))
                .as("a leader since before the report: the report's age decides").isEqualTo(Freshness.EXPIRED);
    }

    private static String freshness(RawClient client) {
        return client.get("/api/v1/state").json().path("health").path("cn").path("freshness").asText();
    }
}
