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

    @ParameterizedTest(name = "{0} holds {1} keys")
    @CsvSource(delimiter = '|', value = {
            "42                      | 1",
            "0~1999                  | 2000",
            "1~9223372036854775807   | 9223372036854775807",
            "0~9223372036854775807   | 9223372036854775807",
    })
    void size_countsTheKeysAndSaturatesAtTheLargestLong(String range, long size) {
        assertThat(KeyRange.parse(range).size()).isEqualTo(size);
    }

    @ParameterizedTest(name = "{0} contains {1}: {2}")
    @CsvSource(delimiter = '|', value = {
            "10~20 | 9  | false",
            "10~20 | 10 | true",
            "10~20 | 20 | true",
            "10~20 | 21 | false",
    })
    void contains_bothBoundsIncluded(String range, long key, boolean contains) {
        assertThat(KeyRange.parse(range).contains(key)).isEqualTo(contains);
    }

    @ParameterizedTest(name = "''{0}'' parses")
    @CsvSource({"0~0", "0", "5~5"})
    void parse_acceptsZeroAndASingleKey(String text) {
        assertThat(KeyRange.parse(text).size()).isEqualTo(1);
    }
}
