package io.unitas.core.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class WriteFencesTest {

    private static final FencePolicy REJECT = FencePolicy.reject(Duration.ofSeconds(5));
    private final WriteFences fences = WriteFences.of(Map.of("u-sh", REJECT));

    @ParameterizedTest(name = "{1} of {0} is fenced: {2}")
    @CsvSource({
            "u-sh, POST,    true",
            "u-sh, PUT,     true",
            "u-sh, PATCH,   true",
            "u-sh, DELETE,  true",
            "u-sh, GET,     false",
            "u-sh, HEAD,    false",
            "u-sh, OPTIONS, false",
            "u-hz, POST,    false",
    })
    void writesOfAFencedUnitMeetTheFenceAndReadsPass(String unit, String method, boolean fenced) {
        assertThat(fences.fenceFor(unit, method)).isEqualTo(fenced ? REJECT : null);
    }

    @Test
    void writeMethodsAreConfigurable() {
        WriteFences onlyPost = WriteFences.of(Map.of("u-sh", REJECT), Set.of("post"));
        assertThat(onlyPost.fenceFor("u-sh", "POST")).isEqualTo(REJECT);
        assertThat(onlyPost.fenceFor("u-sh", "DELETE")).isNull();
    }

    @Test
    void anEmptyWriteMethodSetIsAMistake() {
        assertThatThrownBy(() -> WriteFences.of(Map.of(), Set.of()))
                .hasMessage("write_methods: [] (expected: at least one method, e.g. POST)");
    }

    @Test
    void aThrottleNeedsARateAndEveryFenceARetryAfterOfASecond() {
        assertThatThrownBy(() -> FencePolicy.throttle(0, 1, Duration.ofSeconds(1)))
                .hasMessage("writes_per_second: 0.0 (expected: > 0)");
        assertThatThrownBy(() -> FencePolicy.reject(Duration.ZERO)).hasMessage("retry_after: PT0S (expected: >= 1s)");
    }
}
