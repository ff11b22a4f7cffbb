package io.unitas.core.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
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
        assertThat(fences.fenceFor(unit, method, "/orders")).isEqualTo(fenced ? REJECT : null);
    }

    @Test
    void writeMethodsAreConfigurable() {
        WriteFences onlyPost = WriteFences.of(Map.of("u-sh", REJECT), new Writes(Set.of("post"), List.of()));
        assertThat(onlyPost.fenceFor("u-sh", "POST", "/orders")).isEqualTo(REJECT);
        assertThat(onlyPost.fenceFor("u-sh", "DELETE", "/orders")).isNull();
    }

    @ParameterizedTest(name = "POST {0} is a write: {1}")
    @CsvSource({
            "/acme.orders.v1.Orders/GetOrder,     false",
            "/acme.orders.v1.Orders/ListOrders,   true",
            "/acme.orders.v1.Orders/CreateOrder,  true",
            "/graphql/query,                      false",
            "/graphql/query/x,                    true",
            "/graphql,                            true",
    })
    void readPathsAreReadsWhateverTheirMethod(String path, boolean write) {
        Writes writes = new Writes(Writes.DEFAULT_METHODS, List.of("/acme.orders.v1.Orders/Get*", "/graphql/query"));
        WriteFences fenced = WriteFences.of(Map.of("u-sh", REJECT), writes);

        assertThat(writes.isWrite("POST", path)).isEqualTo(write);
        assertThat(fenced.fenceFor("u-sh", "POST", path)).isEqualTo(write ? REJECT : null);
    }

    @Test
    void anEmptyWriteMethodSetOrAStarInsideAReadPathIsAMistake() {
        assertThatThrownBy(() -> new Writes(Set.of(), List.of()))
                .hasMessage("write_methods: [] (expected: at least one method, e.g. POST)");
        assertThatThrownBy(() -> new Writes(Writes.DEFAULT_METHODS, List.of("/a/*/b")))
                .hasMessage("read_paths: '/a/*/b' (expected: a path starting with /, with * only at its end)");
        assertThatThrownBy(() -> new Writes(Writes.DEFAULT_METHODS, List.of("a*")))
                .hasMessage("read_paths: 'a*' (expected: a path starting with /, with * only at its end)");
    }

    @Test
    void aThrottleNeedsARateAndEveryFenceARetryAfterOfASecond() {
        assertThatThrownBy(() -> FencePolicy.throttle(0, 1, Duration.ofSeconds(1)))
                .hasMessage("writes_per_second: 0.0 (expected: > 0)");
        assertThatThrownBy(() -> FencePolicy.reject(Duration.ZERO)).hasMessage("retry_after: PT0S (expected: >= 1s)");
    }
}
