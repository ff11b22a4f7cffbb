package io.unitas.config.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;


class DurationFormatTest {

    @ParameterizedTest(name = "{0} is {1} ms")
    @CsvSource({"500ms, 500", "5s, 5000", "2m, 120000", "1h, 3600000", "0s, 0", "1500ms, 1500"})
    void parsesANumberAndAUnit_andFormatsBackTheSameText(String text, long ms) {
        assertThat(DurationFormat.parse(text)).isEqualTo(Duration.ofMillis(ms));
        assertThat(DurationFormat.format(Duration.ofMillis(ms))).isEqualTo(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "5", "5 sec", "-1s", "1.5s", "PT5S"})
    void rejectsAnythingElseSayingWhatWasExpected(String text) {
        assertThatThrownBy(() -> DurationFormat.parse(text))
                .hasMessage("'" + text + "' (expected: a duration like 500ms, 5s, 2m or 1h)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0s", "0ms", "0h"})
    void parsePositive_refusesZero(String text) {
        assertThatThrownBy(() -> DurationFormat.parsePositive(text))
                .hasMessage("'" + text + "' (expected: a duration above 0, like 500ms, 5s, 2m or 1h)");
    }

    @ParameterizedTest
    @CsvSource({"1ms, 1", "1h, 3600000"})
    void parsePositive_takesWhatParseTakesAboveZero(String text, long ms) {
        assertThat(DurationFormat.parsePositive(text)).isEqualTo(Duration.ofMillis(ms));
    }
}
