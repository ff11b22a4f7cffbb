package io.unitas.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** What a region id may be, and how regions compare. */
class RegionTest {

    @ParameterizedTest(name = "''{0}'' is a region id: {1}")
    @CsvSource({
            "cn,                    true",
            "eu-west_1,             true",
            "0,                     true",
            "-cn,                   false",
            "CN,                    false",
            "'',                    false",
            "cn.1,                  false",
    })
    void aRegionIdIsLowercaseLettersDigitsDashOrUnderscore(String id, boolean valid) {
        assertThat(Region.isValidId(id)).isEqualTo(valid);
        if (valid) {
            assertThat(Region.of(id).id()).isEqualTo(id);
        } else {
            assertThatThrownBy(() -> Region.of(id)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("region id: '" + id + "' (expected: lowercase letters, digits, '-' or '_', at most 63)");
        }
    }

    @Test
    void anIdOf63IsTheLongestAndNullIsNone() {
        assertThat(Region.isValidId("a".repeat(63))).isTrue();
        assertThat(Region.isValidId("a".repeat(64))).isFalse();
        assertThat(Region.isValidId(null)).isFalse();
    }

    @Test
    void regionsSortByIdAndAreEqualByIt() {
        assertThat(Stream.of("us", "cn", "eu").map(Region::of).sorted().toList())
                .isEqualTo(List.of(Region.of("cn"), Region.of("eu"), Region.of("us")));
        assertThat(Region.of("eu")).isEqualTo(new Region("eu")).hasSameHashCodeAs(new Region("eu"))
                .hasToString("eu");
        assertThat(Region.of("eu").compareTo(Region.of("eu"))).isZero();
    }
}
