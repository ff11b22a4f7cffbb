package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import io.unitas.config.HealthReportJson;
import io.unitas.control.client.internal.RawClient;
import io.unitas.core.Region;
import io.unitas.core.health.UnitReconciliation;
import io.unitas.testkit.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Open siblings and drift per region and unit, as each region's health agent reads them from its own database and
 * pushes them in its report: kept in the state the watch and {@code GET /api/v1/state} serve (what the console's
 * conflicts and drift table renders) and summed in the control plane's metrics, across a restart of the control
 * plane, and replaced by the region's next report.
 */
class ConflictsAndDriftTest {

    private static final Instant T0 = Instant.parse("2026-12-05T10:00:00Z");

    @TempDir
    Path dir;

    private static String withReconciliation(String report, UnitReconciliation reconciliation) {
        return report.substring(0, report.length() - 1) + ",\"reconciliation\":"
               + HealthReportJson.reconciliationTree(reconciliation) + "}";
    }

    @Test
    void eachRegionsConflictsAndDrift_areInTheStateAndMetrics_acrossARestart_untilItsNextReport() throws Exception {
        Map<String, UnitReconciliation.Unit> units = new LinkedHashMap<>();
        units.put("u-de", new UnitReconciliation.Unit(2, Optional.of(T0.minusSeconds(60)), Optional.of(
                new UnitReconciliation.Pass(Region.of("eu"), T0.minusSeconds(5), Duration.ofSeconds(10), 3, 1, 5,
                                            Optional.empty()))));
        units.put("u-ny", new UnitReconciliation.Unit(0, Optional.empty(), Optional.of(
                new UnitReconciliation.Pass(Region.of("us"), T0.minusSeconds(4), Duration.ofSeconds(10), 0, 0, 0,
                                            Optional.of("us: connection refused")))));
        UnitReconciliation cn = UnitReconciliation.of(T0, units);
        Path data = dir.resolve("data");
        try (ControlServer server = ControlServer.builder().port(0).dataDir(data).tokens(Fixtures.tokensFile(dir))
                .clock(new MutableClock(T0)).start()) {
            RawClient admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
            Fixtures.seed(admin, T0, 50);
            Fixtures.assertOk(Fixtures.putHealth(admin, "cn",
                    withReconciliation(Fixtures.report("cn", 2, T0, true, 50), cn)));

            JsonNode health = RawClient.of(server.uri(), Fixtures.VIEWER.secret()).get("/api/v1/state").json()
                                       .path("health");
            assertThat(HealthReportJson.readReconciliation(health.path("cn").path("reconciliation"))).isEqualTo(cn);
            assertThat(health.path("eu").has("reconciliation")).as("eu reported none").isFalse();
            Map<String, Double> samples = ControlMetricsEndpointTest.scrape(java.net.http.HttpClient.newHttpClient(),
                                                                            server.uri());
            assertThat(samples).containsEntry("unitas_control_open_siblings", 2.0)
                               .containsEntry("unitas_control_reconcile_ranges_pending", 1.0)
                               .containsEntry("unitas_control_reconcile_failing_units", 1.0);
        }
        try (ControlServer server = ControlServer.builder().port(0).dataDir(data).tokens(Fixtures.tokensFile(dir))
                .clock(new MutableClock(T0)).start()) {
            RawClient viewer = RawClient.of(server.uri(), Fixtures.VIEWER.secret());
            assertThat(HealthReportJson.readReconciliation(viewer.get("/api/v1/state").json().path("health")
                                                                 .path("cn").path("reconciliation")))
                    .as("kept with the stored state").isEqualTo(cn);

            UnitReconciliation resolved = UnitReconciliation.of(T0.plusSeconds(10), Map.of());
            Fixtures.assertOk(Fixtures.putHealth(RawClient.of(server.uri(), Fixtures.ADMIN.secret()), "cn",
                    withReconciliation(Fixtures.report("cn", 3, T0.plusSeconds(10), true, 50), resolved)));
            assertThat(HealthReportJson.readReconciliation(viewer.get("/api/v1/state").json().path("health")
                                                                 .path("cn").path("reconciliation")))
                    .as("siblings resolved, unit no longer reconciled there").isEqualTo(resolved);
        }
    }
}
