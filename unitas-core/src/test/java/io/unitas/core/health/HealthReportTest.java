package io.unitas.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;

/** The document a health agent publishes, and which of its changes a consumer must hear about. */
class HealthReportTest {

    private static final Region CN = Region.of("cn");
    private static final Instant AT = Instant.parse("2026-11-30T14:00:00Z");
    private static final RegionHealth READ_ONLY =
            new RegionHealth(true, false, 120, 0.8, List.of("pg-primary: read-only (transaction_read_only=on)"));
    private static final CheckReport PG_UP = new CheckReport(true, 4, "", 120, Map.of("role", "primary"));
    private static final CheckReport API_UP = new CheckReport(true, 2, "", -1, Map.of());

    private static HealthReport report(RegionHealth health, Map<String, CheckReport> checks) {
        return new HealthReport(CN, 7, AT, health, checks);
    }

    private static final HealthReport BASE = report(READ_ONLY, ordered("pg", PG_UP, "api", API_UP));

    private static Map<String, CheckReport> ordered(Object... nameAndCheck) {
        Map<String, CheckReport> m = new LinkedHashMap<>();
        for (int i = 0; i < nameAndCheck.length; i += 2) {
            m.put((String) nameAndCheck[i], (CheckReport) nameAndCheck[i + 1]);
        }
        return m;
    }

    @Test
    void aNegativeSequenceIsRefusedAndZeroIsTheFirstAllowed() {
        assertThatThrownBy(() -> new HealthReport(CN, -1, AT, READ_ONLY, Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sequence: -1 (expected: >= 0)");
        assertThat(new HealthReport(CN, 0, AT, READ_ONLY, Map.of()).sequence()).isZero();
    }

    @Test
    void theChecksKeepTheirConfiguredOrderAndLaterChangesToTheSourceDoNotShow() {
        Map<String, CheckReport> source = ordered("pg", PG_UP, "api", API_UP);
        HealthReport report = report(READ_ONLY, source);
        source.put("redis", API_UP);

        assertThat(report.checks().keySet()).containsExactly("pg", "api");
        assertThatThrownBy(() -> report.checks().put("redis", API_UP))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void healthyAndReasonsAreTheRegionHealths() {
        assertThat(BASE.healthy()).isTrue();
        assertThat(BASE.reasons()).containsExactly("pg-primary: read-only (transaction_read_only=on)");

        HealthReport down = report(RegionHealth.down(List.of("api: connection refused")), Map.of());
        assertThat(down.healthy()).isFalse();
        assertThat(down.reasons()).containsExactly("api: connection refused");
    }

    @Test
    void withSequence_changesOnlyTheSequence() {
        HealthReport next = BASE.withSequence(8);

        assertThat(next).isEqualTo(new HealthReport(CN, 8, AT, READ_ONLY, BASE.checks()));
        assertThat(next.checks().keySet()).containsExactly("pg", "api");
    }

    static Stream<Arguments> changes() {
        return Stream.<Arguments>of(
                change("the same report", false, r -> r),
                change("another sequence and time", false,
                       r -> new HealthReport(CN, 99, AT.plusSeconds(5), r.health(), r.checks())),
                change("lag, score and latency drift", false,
                       r -> report(new RegionHealth(true, false, 900, 0.6, r.reasons()),
                                   ordered("pg", new CheckReport(true, 40, "", 900, Map.of("role", "primary")),
                                           "api", API_UP))),
                change("another region", true, r -> new HealthReport(Region.of("eu"), 7, AT, r.health(), r.checks())),
                change("healthy flips", true,
                       r -> report(new RegionHealth(false, false, 120, 0.8, r.reasons()), r.checks())),
                change("writable flips", true,
                       r -> report(new RegionHealth(true, true, 120, 0.8, r.reasons()), r.checks())),
                change("another reason", true,
                       r -> report(new RegionHealth(true, false, 120, 0.8, List.of("pg-primary: lag 5s")), r.checks())),
                change("a check is added", true,
                       r -> report(r.health(), ordered("pg", PG_UP, "api", API_UP, "redis", API_UP))),
                change("a check is removed", true, r -> report(r.health(), ordered("pg", PG_UP))),
                change("the first check goes down", true,
                       r -> report(r.health(), ordered("pg", CheckReport.down("read-only"), "api", API_UP))),
                change("the last check goes down", true,
                       r -> report(r.health(), ordered("pg", PG_UP, "api", CheckReport.down("timeout")))));
    }

    private static Arguments change(String name, boolean differs, UnaryOperator<HealthReport> edit) {
        return Arguments.of(name, differs, edit);
    }

    @ParameterizedTest(name = "{0}: differs {1}")
    @MethodSource("changes")
    void differsFrom_onlyWhatAConsumerActsOn(String name, boolean differs, UnaryOperator<HealthReport> edit) {
        HealthReport other = edit.apply(BASE);

        assertThat(BASE.differsFrom(other)).isEqualTo(differs);
        assertThat(other.differsFrom(BASE)).isEqualTo(differs);
    }

    @Test
    void differsFrom_noReportYet() {
        assertThat(BASE.differsFrom(null)).isTrue();
    }

    @Test
    void unitLags_areLookedUpByUnitAndRegion_absentIsUnknown_andSurviveANewSequence() {
        Region eu = Region.of("eu");
        HealthReport r = BASE.withUnitLags(List.of(new UnitLag("u-sh", eu, 80, AT))).withSequence(9);

        assertThat(r.unitLag("u-sh", eu)).contains(new UnitLag("u-sh", eu, 80, AT));
        assertThat(r.unitLag("u-sh", Region.of("us"))).isEmpty();
        assertThat(r.unitLag("u-bj", eu)).isEmpty();
        assertThat(BASE.unitLags()).isEmpty();
    }

    @Test
    void unitLags_refuseTheReportingRegionItself_aPairGivenTwice_andANegativeLag() {
        Region eu = Region.of("eu");
        assertThatThrownBy(() -> BASE.withUnitLags(List.of(new UnitLag("u-sh", CN, 0, AT))))
                .hasMessage("unit_lag.u-sh.cn: the reporting region itself (expected: another region)");
        assertThatThrownBy(() -> BASE.withUnitLags(List.of(new UnitLag("u-sh", eu, 0, AT),
                                                           new UnitLag("u-sh", eu, 5, AT))))
                .hasMessage("unit_lag.u-sh.eu: given twice (expected: one entry per unit and region)");
        assertThatThrownBy(() -> new UnitLag("u-sh", eu, -1, AT))
                .hasMessage("unit_lag.u-sh.eu.lag_ms: -1 (expected: >= 0; leave the entry out when unknown)");
    }
}
