package io.unitas.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.health.CheckReport;
import io.unitas.core.health.HealthReport;
import io.unitas.core.health.UnitLag;
import io.unitas.core.health.UnitPositions;
import io.unitas.core.health.UnitReconciliation;

class HealthReportJsonTest {

    private static final String PUSHED = """
            {"region":"cn","sequence":17,"observed_at":"2026-11-30T14:00:00.123Z","healthy":false,"writable":false,
             "replication_lag_ms":1200,"score":0.35,"reasons":["pg-primary: read-only (transaction_read_only=on)"],
             "checks":{"pg-primary":{"up":false,"latency_ms":3,"reason":"read-only (transaction_read_only=on)"}}}""";

    private static HealthReport report() {
        Map<String, CheckReport> checks = new LinkedHashMap<>();
        checks.put("pg-primary", new CheckReport(false, 3, "read-only (transaction_read_only=on)", -1,
                                                 Map.of("role", "primary", "writable", false)));
        checks.put("pg-standby", new CheckReport(true, 5, "", 1200, Map.of("lag_source", "heartbeat")));
        return new HealthReport(Region.of("cn"), 17, Instant.parse("2026-11-30T14:00:00.123Z"),
                new RegionHealth(false, false, 1200, 0.0, List.of("pg-primary: read-only (transaction_read_only=on)")),
                checks);
    }

    @Test
    void theDocumentedPushExampleReads() {
        HealthReport report = HealthReportJson.read(PUSHED);

        assertThat(report.region()).isEqualTo(Region.of("cn"));
        assertThat(report.sequence()).isEqualTo(17);
        assertThat(report.health()).isEqualTo(new RegionHealth(false, false, 1200, 0.35,
                List.of("pg-primary: read-only (transaction_read_only=on)")));
        assertThat(report.checks().get("pg-primary"))
                .isEqualTo(new CheckReport(false, 3, "read-only (transaction_read_only=on)", -1, Map.of()));
    }

    @Test
    void writeThenReadGivesTheSameReport() {
        assertThat(HealthReportJson.read(HealthReportJson.write(report()))).isEqualTo(report());
    }

    @Test
    void writesFieldsInTheDocumentedOrderWithSnakeCaseNames() {
        assertThat(HealthReportJson.write(report())).startsWith(
                "{\"region\":\"cn\",\"sequence\":17,\"observed_at\":\"2026-11-30T14:00:00.123Z\",\"healthy\":false,"
                + "\"writable\":false,\"replication_lag_ms\":1200,\"score\":0.0,\"reasons\":[");
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
            "\"healthy\":false,|health report: healthy: missing (expected: true or false)",
            "\"score\":0.35|health report: score: 1.5 (expected: 0 <= score <= 1)",
            "\"region\":\"cn\"|health report: region: 'CN' (expected: lowercase letters, digits, '-' or '_')",
            "\"up\":false|health report: checks.pg-primary.up: \"no\" (expected: true or false)",
            "\"observed_at\":\"2026-11-30T14:00:00.123Z\"|health report: observed_at: 'yesterday' "
            + "(expected: an RFC 3339 UTC time like 2026-11-30T14:00:00.123Z)",
    })
    void aWrongFieldIsNamedByItsPath(String field, String message) {
        String replacement = switch (field.substring(1, field.indexOf('"', 1))) {
            case "healthy" -> "";
            case "score" -> "\"score\":1.5";
            case "region" -> "\"region\":\"CN\"";
            case "up" -> "\"up\":\"no\"";
            default -> "\"observed_at\":\"yesterday\"";
        };
        assertThatThrownBy(() -> HealthReportJson.read(PUSHED.replace(field, replacement)))
                .isInstanceOf(ConfigException.class).hasMessage(message);
    }

    @Test
    void aNumberBeyondWhatADoubleHolds_isNamedByItsPath_notACrash() {
        assertThatThrownBy(() -> HealthReportJson.read(PUSHED.replace("\"sequence\":17", "\"sequence\":11e4007")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sequence");
    }

    @Test
    void notJsonAtAllIsOneClearLine() {
        assertThatThrownBy(() -> HealthReportJson.read("<html>"))
                .hasMessageStartingWith("health report: not valid JSON: ");
    }

    private static final String WITH_UNIT_LAG = PUSHED.substring(0, PUSHED.length() - 1)
            + ",\"unit_lag\":{\"u-sh\":{\"eu\":{\"lag_ms\":0,\"measured_at\":\"2026-11-30T14:00:00.100Z\"},"
            + "\"us\":{\"lag_ms\":180,\"measured_at\":\"2026-11-30T14:00:00.100Z\"}}}}";

    @Test
    void unitLag_readsPerUnitAndRegion_andAbsentMeansNoneReported() {
        Instant at = Instant.parse("2026-11-30T14:00:00.100Z");

        assertThat(HealthReportJson.read(WITH_UNIT_LAG).unitLags()).containsExactly(
                new UnitLag("u-sh", Region.of("eu"), 0, at), new UnitLag("u-sh", Region.of("us"), 180, at));
        assertThat(HealthReportJson.read(PUSHED).unitLags()).isEmpty();
        assertThat(HealthReportJson.write(report())).doesNotContain("unit_lag");
    }

    @Test
    void unitLag_survivesWriteThenRead() {
        Instant at = Instant.parse("2026-11-30T14:00:00.100Z");
        HealthReport r = report().withUnitLags(List.of(new UnitLag("u-sh", Region.of("eu"), 0, at),
                                                       new UnitLag("u-sh", Region.of("us"), 7, at),
                                                       new UnitLag("u-bj", Region.of("eu"), 40, at)));

        assertThat(HealthReportJson.read(HealthReportJson.write(r))).isEqualTo(r);
        assertThat(HealthReportJson.write(r)).contains("\"unit_lag\":{\"u-sh\":{\"eu\":{\"lag_ms\":0,"
                                                       + "\"measured_at\":\"2026-11-30T14:00:00.100Z\"},\"us\"");
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
            "\"lag_ms\":180|health report: unit_lag.u-sh.us.lag_ms: -1 (expected: an integer >= 0; leave the entry "
            + "out when unknown)",
            "\"us\":{|health report: unit_lag.u-sh.cn: the reporting region itself (expected: another region)",
            "\"measured_at\":\"2026-11-30T14:00:00.100Z\"}}}|health report: unit_lag.u-sh.us.measured_at: "
            + "'soon' (expected: an RFC 3339 UTC time like 2026-11-30T14:00:00.123Z)",
    })
    void unitLag_aWrongEntryIsNamedByItsPath(String field, String message) {
        String replacement = switch (field.substring(1, field.indexOf('"', 1))) {
            case "lag_ms" -> "\"lag_ms\":-1";
            case "us" -> "\"cn\":{";
            default -> "\"measured_at\":\"soon\"}}}";
        };
        assertThatThrownBy(() -> HealthReportJson.read(WITH_UNIT_LAG.replace(field, replacement)))
                .isInstanceOf(ConfigException.class).hasMessage(message);
    }

    private static final String WITH_POSITIONS = PUSHED.substring(0, PUSHED.length() - 1)
            + ",\"positions\":{\"read_at\":\"2026-11-30T14:00:00.090Z\",\"written\":{\"u-sh\":{\"pending\":4,"
            + "\"oldest\":1000000000012,\"oldest_written_at\":\"2026-11-30T13:59:59.910Z\",\"head\":1000000000020,"
            + "\"head_written_at\":\"2026-11-30T14:00:00.050Z\"}},\"applied\":{\"eu\":{\"u-de\":1000000000007}}}}";

    @Test
    void positions_readAsDocumented_andAbsentMeansNotRead() {
        UnitPositions read = HealthReportJson.read(WITH_POSITIONS).positions();

        assertThat(read).isEqualTo(UnitPositions.of(Instant.parse("2026-11-30T14:00:00.090Z"),
                Map.of("u-sh", new UnitPositions.Written(4, 1000000000012L, Instant.parse("2026-11-30T13:59:59.910Z"),
                                                         1000000000020L, Instant.parse("2026-11-30T14:00:00.050Z"))),
                Map.of(Region.of("eu"), Map.of("u-de", 1000000000007L))));
        assertThat(HealthReportJson.read(PUSHED).positions()).isEqualTo(UnitPositions.NONE);
        assertThat(HealthReportJson.write(report())).doesNotContain("positions");
    }

    @Test
    void positionsAndCountedChanges_surviveWriteThenRead() {
        Instant at = Instant.parse("2026-11-30T14:00:00.100Z");
        HealthReport r = report().withUnitLags(List.of(new UnitLag("u-sh", Region.of("eu"), 30, at, 2)))
                                 .withPositions(HealthReportJson.read(WITH_POSITIONS).positions());

        assertThat(HealthReportJson.read(HealthReportJson.write(r))).isEqualTo(r);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
            "\"pending\":4|health report: positions.written.u-sh.pending: -4 (expected: an integer >= 0)",
            "\"head\":1000000000020|health report: positions.written.u-sh: oldest: 1000000000012, head: 7 "
            + "(expected: 0 <= oldest <= head)",
            "\"u-de\":1000000000007|health report: positions.applied.eu.u-de: \"x\" (expected: an integer >= 0)",
            "\"applied\":{\"eu\"|health report: positions.applied.cn: the reporting region itself (expected: "
            + "another region)",
    })
    void positions_aWrongEntryIsNamedByItsPath(String field, String message) {
        String replacement = switch (field.substring(1, field.indexOf('"', 1))) {
            case "pending" -> "\"pending\":-4";
            case "head" -> "\"head\":7";
            case "u-de" -> "\"u-de\":\"x\"";
            default -> "\"applied\":{\"cn\"";
        };
        assertThatThrownBy(() -> HealthReportJson.read(WITH_POSITIONS.replace(field, replacement)))
                .isInstanceOf(ConfigException.class).hasMessage(message);
    }

    private static final String WITH_RECONCILIATION = PUSHED.substring(0, PUSHED.length() - 1)
            + ",\"reconciliation\":{\"read_at\":\"2026-11-30T14:00:00.090Z\",\"units\":{"
            + "\"u-de\":{\"open_siblings\":2,\"oldest_sibling_at\":\"2026-11-30T13:58:00Z\","
            + "\"pass\":{\"home\":\"eu\",\"at\":\"2026-11-30T13:59:55Z\",\"window_ms\":10000,"
            + "\"ranges_differing\":3,\"ranges_pending\":1,\"keys_repaired\":5}},"
            + "\"u-fr\":{\"open_siblings\":0,\"pass\":{\"home\":\"eu\",\"at\":\"2026-11-30T13:59:56Z\","
            + "\"window_ms\":10000,\"ranges_differing\":0,\"ranges_pending\":0,\"keys_repaired\":0,"
            + "\"failure\":\"eu: connection refused\"}}}}}";

    @Test
    void reconciliation_readAsDocumented_survivesWriteThenRead_andAbsentMeansNotRead() {
        UnitReconciliation read = HealthReportJson.read(WITH_RECONCILIATION).reconciliation();

        Map<String, UnitReconciliation.Unit> units = new LinkedHashMap<>();
        units.put("u-de", new UnitReconciliation.Unit(2, Optional.of(Instant.parse("2026-11-30T13:58:00Z")),
                Optional.of(new UnitReconciliation.Pass(Region.of("eu"), Instant.parse("2026-11-30T13:59:55Z"),
                                                        Duration.ofSeconds(10), 3, 1, 5, Optional.empty()))));
        units.put("u-fr", new UnitReconciliation.Unit(0, Optional.empty(),
                Optional.of(new UnitReconciliation.Pass(Region.of("eu"), Instant.parse("2026-11-30T13:59:56Z"),
                                                        Duration.ofSeconds(10), 0, 0, 0,
                                                        Optional.of("eu: connection refused")))));
        assertThat(read).isEqualTo(UnitReconciliation.of(Instant.parse("2026-11-30T14:00:00.090Z"), units));
        HealthReport r = report().withReconciliation(read);
        assertThat(HealthReportJson.read(HealthReportJson.write(r))).isEqualTo(r);
        assertThat(HealthReportJson.read(PUSHED).reconciliation()).isEqualTo(UnitReconciliation.NONE);
        assertThat(HealthReportJson.write(report())).doesNotContain("reconciliation");
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
            "\"open_siblings\":2|health report: reconciliation.units.u-de.open_siblings: -2 (expected: an integer "
            + ">= 0)",
            "\"oldest_sibling_at\":\"2026-11-30T13:58:00Z\",|health report: reconciliation.units.u-de: "
            + "oldest_sibling_at: missing with 2 open siblings (expected: given exactly when some are open)",
            "\"home\":\"eu\"|health report: reconciliation.units.u-de.pass.home: 'EU' is no region id (expected: "
            + "lowercase letters, digits, '-' or '_')",
            "\"window_ms\":10000|health report: reconciliation.units.u-de.pass: window_ms: 0 (expected: > 0)",
    })
    void reconciliation_aWrongEntryIsNamedByItsPath(String field, String message) {
        String replacement = switch (field.substring(1, field.indexOf('"', 1))) {
            case "open_siblings" -> "\"open_siblings\":-2";
            case "oldest_sibling_at" -> "";
            case "home" -> "\"home\":\"EU\"";
            default -> "\"window_ms\":0";
        };
        assertThatThrownBy(() -> HealthReportJson.read(WITH_RECONCILIATION.replaceFirst(
                java.util.regex.Pattern.quote(field), java.util.regex.Matcher.quoteReplacement(replacement))))
                .isInstanceOf(ConfigException.class).hasMessage(message);
    }
}
