package io.unitas.core.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KeyRangeTest {

    @ParameterizedTest(name = "''{0}'' is {1}~{2}")
    @CsvSource(delimiter = '|', value = {
            "0~1999        | 0    | 1999",
            "' 5000 ~ 9999 ' | 5000 | 9999",
            "42            | 42   | 42",
    })
    void parse_readsInclusiveBounds(String text, long first, long last) {
        assertThat(KeyRange.parse(text)).isEqualTo(KeyRange.of(first, last));
    }

    @ParameterizedTest(name = "''{0}'' is rejected: {1}")
    @CsvSource(delimiter = '|', value = {
            "2500~1500 | '2500~1500' is inverted (expected: first <= last)",
            "-1~5      | '-1~5' (expected: first~last, two whole numbers >= 0)",
            "0~        | '0~' (expected: first~last, two whole numbers >= 0)",
            "a~b       | 'a~b' (expected: first~last, two whole numbers >= 0)",
    })
    void parse_rejectsMalformedText(String text, String message) {
        assertThatThrownBy(() -> KeyRange.parse(text)).hasMessage(message);
    }

    @ParameterizedTest(name = "{0} and {1} overlap: {2}")
    @CsvSource(delimiter = '|', value = {
            "0~1999 | 1500~2500 | true",
            "0~1999 | 1999~1999 | true",
            "0~1999 | 2000~2999 | false",
    })
    void overlaps_whenTheyShareAKey(String a, String b, boolean expected) {
        assertThat(KeyRange.parse(a).overlaps(KeyRange.parse(b))).isEqualTo(expected);
        assertThat(KeyRange.parse(b).overlaps(KeyRange.parse(a))).isEqualTo(expected);
    }
}
