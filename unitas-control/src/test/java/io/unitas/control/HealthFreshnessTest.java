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

    private static String freshness(ControlClient client) {
        return client.get("/api/v1/state").json().path("health").path("cn").path("freshness").asText();
    }
}
