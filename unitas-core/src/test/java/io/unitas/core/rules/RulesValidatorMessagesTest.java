package io.unitas.core.rules;

import static io.unitas.core.rules.RulesFixtures.TOPOLOGY;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.unitas.core.Problem;

/** The validator's messages where a boundary decides what is said: loads, one shared key, long lists. */
class RulesValidatorMessagesTest {

    private static List<String> problems(UnitRules.Builder builder) {
        return builder.problems(TOPOLOGY).stream().map(Problem::toString).toList();
    }

    private static UnitRules.Builder oneUnit(Double load) {
        return UnitRules.builder().unit("u-cn", "cn", load).source(KeySource.header("x-user-id")).strategies(Map.of())
                .range(0, 99, "u-cn");
    }

    @ParameterizedTest(name = "a load of {0} is refused")
    @CsvSource({"-1.0", "NaN", "Infinity"})
    void aUnitsLoadIsAFiniteNumberOfAtLeastZero(double load) {
        assertThat(problems(oneUnit(load))).containsExactly("units[0].load: " + load + " (expected: a number >= 0)");
    }

    @Test
    void aLoadOfZeroIsAllowed() {
        assertThat(problems(oneUnit(0.0))).isEmpty();
    }

    @Test
    void twoRangesSharingOneKeyOverlap() {
        UnitRules.Builder b = oneUnit(null).range(99, 199, "u-cn");

        assertThat(problems(b)).containsExactly("ranges[1]: 99~199 overlaps 0~99 of unit u-cn");
    }

    @Test
    void aGapIsNamedFromTheFirstRangeThatReachesFurthest() {
        UnitRules.Builder b = oneUnit(null).range(50, 99, "u-cn").range(150, 199, "u-cn");

        assertThat(problems(b)).containsExactly(
                "ranges[1]: 50~99 overlaps 0~99 of unit u-cn",
                "ranges[2]: keys 100~149 between 0~99 and 150~199 are in no range (expected: contiguous ranges)");
    }

    @Test
    void withNoUnitsTheChoicesSayNoneIsDefined() {
        assertThat(RulesValidator.expectedOneOf(List.of())).isEqualTo(" (expected: none is defined)");
    }

    @ParameterizedTest(name = "{0} choices are listed in full: {1}")
    @CsvSource({"1, true", "12, true", "13, false"})
    void twelveChoicesAreListedAndMoreAreShortened(int count, boolean full) {
        List<String> choices = IntStream.rangeClosed(1, count).mapToObj(i -> "u-" + i).toList();
        String shown = String.join(", ", choices.subList(0, Math.min(count, 12)));

        assertThat(RulesValidator.expectedOneOf(choices))
                .isEqualTo(" (expected one of: " + shown + (full ? "" : ", ...") + ")");
    }
}
