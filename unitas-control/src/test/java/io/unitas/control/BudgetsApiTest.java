package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.ConsistencyFile;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.wire.StalenessBudget;
import io.unitas.testkit.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /api/v1/budgets}: each bounded-staleness budget of the contract the control plane was started with,
 * against the largest lag the regions' reports measured now, as {@code unitas check consistency --control} compares
 * them; the console's table reads it.
 */
class BudgetsApiTest {

    private static final Instant T0 = Instant.parse("2026-12-05T10:00:00Z");

    @TempDir
    Path dir;

    private static final String CONTRACT = """
            entities:
              orders:
                consistency: strong
                money_or_legal: true
              recommendations:
                consistency: bounded-staleness
                staleness_budget: 500ms
              prices:
                consistency: bounded-staleness
                staleness_budget: 2s
            """;

    @Test
    void eachBudget_againstTheLargestLagReported_overWhenAbove() {
        try (ControlServer server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir))
                .clock(new MutableClock(T0))
                .residency(ConsistencyFile.parse(ConfigDocument.parse("consistency.yaml", CONTRACT))).start()) {
            RawClient viewer = RawClient.of(server.uri(), Fixtures.VIEWER.secret());
            JsonNode none = viewer.get("/api/v1/budgets").json().path("budgets");
            assertThat(none).hasSize(2);
            assertThat(none.get(0).path("largest_lag_ms").isNull()).as("nothing reported yet").isTrue();
            assertThat(none.get(0).path("over").asBoolean()).isFalse();

            RawClient admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
            Fixtures.seed(admin, T0, 50);

            Fixtures.putHealth(admin, "eu", Fixtures.report("eu", 2, T0, true, 300));
            Fixtures.putHealth(admin, "cn", Fixtures.reportWithUnitLag("cn", 2, T0, "eu", 1_200, T0, "u-sh"));
            JsonNode budgets = viewer.get("/api/v1/budgets").json().path("budgets");
            assertThat(budgets).hasSize(2);
            JsonNode recommendations = budgets.get(0);
            assertThat(recommendations.path("name").asText()).isEqualTo("recommendations");
            assertThat(recommendations.path("declared_at").asText())
                    .isEqualTo("consistency.yaml:7: entities.recommendations.staleness_budget");
            assertThat(recommendations.path("budget").asText()).isEqualTo("500ms");
            assertThat(recommendations.path("largest_lag_ms").asLong()).isEqualTo(1_200);
            assertThat(recommendations.path("lagging").asText()).isEqualTo("unit u-sh from cn to eu");
            assertThat(recommendations.path("over").asBoolean()).isTrue();
            assertThat(budgets.get(1).path("name").asText()).isEqualTo("prices");
            assertThat(budgets.get(1).path("over").asBoolean()).as("1.2 s is within 2 s").isFalse();
            assertThat(ControlClient.of(server.uri(), Fixtures.VIEWER.secret()).budgets()).as("the typed client")
                    .containsExactly(new StalenessBudget("recommendations", recommendations.path("declared_at")
                                                                                            .asText(),
                                                         Duration.ofMillis(500), 1_200, "unit u-sh from cn to eu",
                                                         true),
                                     new StalenessBudget("prices", "consistency.yaml:10: "
                                                                   + "entities.prices.staleness_budget",
                                                         Duration.ofSeconds(2), 1_200, "unit u-sh from cn to eu",
                                                         false));
        }
    }

    @Test
    void withoutAContract_noBudgets_andAnonymousIsRefused() {
        try (ControlServer server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir))
                .clock(new MutableClock(T0)).start()) {
            assertThat(RawClient.of(server.uri(), Fixtures.VIEWER.secret()).get("/api/v1/budgets").json()
                                .path("budgets")).isEmpty();
            assertThat(RawClient.of(server.uri(), null).send("GET", "/api/v1/budgets", null, java.util.Map.of())
                                .status()).isEqualTo(401);
        }
    }
}
