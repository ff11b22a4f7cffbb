package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.config.ConfigException;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.testkit.MutableClock;

/**
 * How far a health report is believed: a reporter token bound to a region reports that region only, a report
 * observed further in the future than the allowed clock skew is refused, and an admin can reset a region whose
 * reports a forged one blocks.
 */
class HealthReportTrustTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");
    private static final ControlToken AGENT_CN = ControlToken.generate("agent-cn", Role.REPORTER, "cn");

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(T0);
    private ControlServer server;
    private RawClient admin;
    private RawClient agentCn;

    @BeforeEach
    void start() throws Exception {
        Path tokens = Fixtures.tokensFile(dir);
        Files.writeString(tokens, AGENT_CN.fileLine() + "\n", java.nio.file.StandardOpenOption.APPEND);
        server = ControlServer.builder().port(0).dataDir(dir.resolve("data")).tokens(tokens).clock(clock)
                              .healthFreshness(Duration.ofMinutes(5), Duration.ofMinutes(5))
                              .healthClockSkew(Duration.ofSeconds(30)).start();
        admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
        agentCn = RawClient.of(server.uri(), AGENT_CN.secret());
        Fixtures.seed(admin, T0, 50);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static ControlResponse report(RawClient who, String region, long sequence, Instant at, boolean ok) {
        return who.send("PUT", "/api/v1/health/" + region, Fixtures.report(region, sequence, at, ok, 0), Map.of());
    }

    @Test
    void aReporterBoundToCn_reportsCn_andNoOtherRegion() {
        assertThat(AGENT_CN.fileLine()).endsWith(" region:cn");

        ControlResponse eu = report(agentCn, "eu", 2, T0, false);

        assertThat(eu.status()).isEqualTo(403);
        assertThat(eu.json().path("detail").asText())
                .isEqualTo("token 'agent-cn' reports region cn only (expected: PUT /api/v1/health/cn)");
        assertThat(report(agentCn, "cn", 2, T0, true).status()).isEqualTo(200);
        assertThat(admin.get("/api/v1/state").json().path("health").path("eu").path("healthy").asBoolean())
                .isTrue();
    }

    @Test
    void aReportObservedBeyondTheAllowedSkew_isRefused_andTheHonestAgentGoesOn() {
        ControlResponse forged = agentCn.send("PUT", "/api/v1/health/cn", Fixtures.report("cn", Long.MAX_VALUE,
                Instant.parse("2999-01-01T00:00:00Z"), false, 0), Map.of());

        assertThat(forged.status()).isEqualTo(422);
        assertThat(forged.json().path("problems").get(0).path("path").asText()).isEqualTo("observed_at");
        assertThat(forged.json().path("problems").get(0).path("message").asText()).isEqualTo(
                "2999-01-01T00:00:00Z is ahead of the control plane's clock (expected: at most "
                + T0.plusSeconds(30) + ", now + 30s of allowed skew)");
        assertThat(report(agentCn, "cn", 2, T0.plusSeconds(1), true).status()).isEqualTo(200);
        assertThat(report(agentCn, "cn", 3, T0.plusSeconds(30), true).status()).as("at the edge of the skew")
                .isEqualTo(200);
    }

    @Test
    void anAdminResetsARegionsHealth_soThatItsAgentIsHeardAgain() {
        // within the skew, a report with the highest sequence still blocks every later one until reset
        assertThat(report(agentCn, "cn", Long.MAX_VALUE, T0.plusSeconds(29), false).status()).isEqualTo(200);
        clock.advance(Duration.ofSeconds(5));
        assertThat(report(agentCn, "cn", 2, T0.plusSeconds(5), true).status()).isEqualTo(409);

        ControlResponse byOperator = RawClient.of(server.uri(), Fixtures.OPERATOR.secret())
                                                  .send("DELETE", "/api/v1/health/cn", null, Map.of());
        ControlResponse reset = admin.send("DELETE", "/api/v1/health/cn", null,
                                           Map.of("X-Unitas-Reason", "forged report"));

        assertThat(byOperator.status()).isEqualTo(403);
        assertThat(reset.status()).as(reset.body()).isEqualTo(200);
        assertThat(admin.get("/api/v1/state").json().path("health").has("cn")).isFalse();
        assertThat(report(agentCn, "cn", 3, T0.plusSeconds(6), true).status()).isEqualTo(200);
        assertThat(admin.send("DELETE", "/api/v1/health/mars", null, Map.of()).status()).isEqualTo(404);
        com.fasterxml.jackson.databind.JsonNode entries = admin.get("/api/v1/audit").json().path("entries");
        assertThat(entries.findValuesAsText("action")).contains("health.reset");
    }

    @Test
    void aTokenLineWithABadRegion_isRefusedWithItsLine() throws Exception {
        Path file = Files.writeString(dir.resolve("bad-tokens"), AGENT_CN.fileLine().replace("region:cn",
                                                                                               "region:CN!") + "\n");

        assertThatThrownBy(() -> TokenTable.read(file)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("bad-tokens:1: ");
    }
}
