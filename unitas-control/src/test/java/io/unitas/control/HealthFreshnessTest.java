package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.control.client.ControlClient;
import io.unitas.testkit.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

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
            ControlClient admin = ControlClient.of(server.uri(), Fixtures.ADMIN.secret());
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
            Fixtures.seed(ControlClient.of(server.uri(), Fixtures.ADMIN.secret()), T0, 50);
        }
        clock.advance(Duration.ofMinutes(1)); // down for a minute: every report is older than TTL + grace
        try (ControlServer server = builder.start()) {
            ControlClient admin = ControlClient.of(server.uri(), Fixtures.ADMIN.secret());
            Fixtures.awaitEquals("cn freshness", Duration.ofSeconds(5), () -> freshness(admin), "stale");
            assertThat(admin.get("/api/v1/state").json().path("health").path("cn").path("healthy").asBoolean())
                    .as("healthy while the regions may still push").isTrue();

            clock.advance(Duration.ofSeconds(29));
            sleepTicks();
            assertThat(freshness(admin)).as("29 s after the restart").isEqualTo("stale");

            clock.advance(Duration.ofSeconds(2));
            Fixtures.awaitEquals("cn freshness", Duration.ofSeconds(5), () -> freshness(admin), "expired");
        }
    }

    private static void sleepTicks() {
        try {
            Thread.sleep(200); // ten ticks: a change would have been made
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String freshness(ControlClient client) {
        return client.get("/api/v1/state").json().path("health").path("cn").path("freshness").asText();
    }
}
