package io.unitas.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class AggregationTest {

    private static Aggregation named(String name) {
        return switch (name) {
            case "all" -> Aggregation.all();
            case "any" -> Aggregation.any();
            default -> Aggregation.atLeast(Integer.parseInt(name.substring("at-least-".length())));
        };
    }

    @ParameterizedTest(name = "{0} with {1} of {2} up: {3}")
    @CsvSource({
            "all,        3, 3, true",
            "all,        2, 3, false",
            "any,        1, 3, true",
            "any,        0, 3, false",
            "at-least-2, 2, 3, true",
            "at-least-2, 1, 3, false",
            "at-least-3, 3, 3, true",
            "at-least-1, 1, 3, true",
            "at-least-1, 0, 3, false",
    })
    void aggregationDecidesFromHowManyChildrenAreUp(String aggregation, int up, int total, boolean expected) {
        assertThat(named(aggregation).unmet(up, total).isEmpty()).isEqualTo(expected);
    }

    @Test
    void aFailingCalculatedCheckNamesItsFailingChildren() {
        Map<String, CheckReport> children = new LinkedHashMap<>();
        children.put("redis-a", new CheckReport(true, 2, "", -1, Map.of()));
        children.put("redis-b", CheckReport.down("connection refused"));
        children.put("redis-c", CheckReport.down("master_link_status down"));

        CheckReport report = Aggregation.atLeast(2).apply(children);

        assertThat(report.up()).isFalse();
        assertThat(report.reason()).isEqualTo("1 of 3 up (expected: at least 2); redis-b: connection refused; "
                                              + "redis-c: master_link_status down");
        assertThat(report.latencyMs()).isEqualTo(2);
    }

    @Test
    void atLeastRejectsZero() {
        assertThatThrownBy(() -> Aggregation.atLeast(0)).hasMessage("at-least: 0 (expected: >= 1)");
    }
}
