package io.unitas.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.LongRange;

class DynamicTtlTest {

    /** Expected values from the seed's own {@code max(30, int(base * (0.3 + 0.7 * score)))}. */
    @ParameterizedTest(name = "base {0}, score {1} -> {2}s")
    @CsvSource({
            "300, 1.0, 300",
            "300, 0.6, 216",
            "300, 0.5, 194",
            "300, 0.0, 90",
            "60,  0.0, 30",
            "60,  1.0, 60",
            "0,   1.0, 30",
    })
    void ttlFollowsTheSeedFormula(long base, double score, long expected) {
        assertThat(DynamicTtl.seconds(base, score)).isEqualTo(expected);
    }

    @Property
    void ttlNeverFallsBelowThirtyNorRisesAboveBaseOrThirty(@ForAll @LongRange(max = 86_400) long base,
                                                           @ForAll @DoubleRange(max = 1.0) double score) {
        assertThat(DynamicTtl.seconds(base, score)).isBetween(30L, Math.max(30L, base));
    }

    @Property
    void aLowerScoreNeverGivesALongerTtl(@ForAll @LongRange(max = 86_400) long base,
                                         @ForAll @DoubleRange(max = 1.0) double a,
                                         @ForAll @DoubleRange(max = 1.0) double b) {
        double low = Math.min(a, b);
        double high = Math.max(a, b);
        assertThat(DynamicTtl.seconds(base, low)).isLessThanOrEqualTo(DynamicTtl.seconds(base, high));
    }

    @ParameterizedTest(name = "base {0}, min {1}, score {2} -> {3}s")
    @CsvSource({
            "300, 5,  0.0, 90",
            "300, 120, 0.0, 120",
            "20,  5,  1.0, 20",
            "300, 30, 0.6, 216",
    })
    void theFloorIsConfigurable(long base, long min, double score, long expected) {
        assertThat(DynamicTtl.seconds(base, min, score)).isEqualTo(expected);
    }

    @Property
    void withAFloorTheTtlStaysBetweenFloorAndBase(@ForAll @LongRange(max = 86_400) long base,
                                                  @ForAll @LongRange(max = 3_600) long min,
                                                  @ForAll @DoubleRange(max = 1.0) double score) {
        assertThat(DynamicTtl.seconds(base, min, score)).isBetween(min, Math.max(min, base));
    }

    @Test
    void rejectsAScoreOutsideZeroToOne() {
        assertThatThrownBy(() -> DynamicTtl.seconds(300, 1.5))
                .hasMessage("score: 1.5 (expected: 0 <= score <= 1)");
    }
}
