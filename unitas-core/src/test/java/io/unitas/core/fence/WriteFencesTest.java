package io.unitas.core.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
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

    @Test
    void none_fencesNothingAndCountsTheDefaultMethodsAsWrites() {
        WriteFences none = WriteFences.none();

        assertThat(none.fenceFor("u-sh", "POST", "/orders")).isNull();
        assertThat(none.fences()).isEmpty();
        assertThat(none.writes()).isEqualTo(Writes.DEFAULT);
        assertThat(WriteFences.of(Map.of())).isEqualTo(none);
    }

    @Test
    void of_keepsTheFencesAsGivenAndLaterChangesToTheSourceDoNotShow() {
        Map<String, FencePolicy> source = new HashMap<>(Map.of("u-sh", REJECT));
        WriteFences snapshot = WriteFences.of(source);
        source.put("u-hz", REJECT);

        assertThat(snapshot.fences()).containsExactly(Map.entry("u-sh", REJECT));
        assertThat(snapshot.fenceFor("u-hz", "POST", "/orders")).isNull();
        assertThat(snapshot.writes()).isEqualTo(Writes.DEFAULT);
    }

    static Stream<Arguments> snapshots() {
        Writes onlyPost = new Writes(Set.of("POST"), List.of());
        FencePolicy throttle = FencePolicy.throttle(10, 5, Duration.ofSeconds(5));
        return Stream.of(
                Arguments.of("the same fences", WriteFences.of(Map.of("u-sh", REJECT)), true),
                Arguments.of("the same fences and writes, spelled in lower case",
                             WriteFences.of(Map.of("u-sh", REJECT), new Writes(Set.of("post", "put", "patch", "delete"),
                                                                                 List.of())), true),
                Arguments.of("another unit fenced", WriteFences.of(Map.of("u-hz", REJECT)), false),
                Arguments.of("the unit throttled instead", WriteFences.of(Map.of("u-sh", throttle)), false),
                Arguments.of("other writes", WriteFences.of(Map.of("u-sh", REJECT), onlyPost), false),
                Arguments.of("nothing fenced", WriteFences.none(), false));
    }

    @ParameterizedTest(name = "{0}: equal {2}")
    @MethodSource("snapshots")
    void snapshotsAreEqualByTheirFencesAndWrites(String name, WriteFences other, boolean equal) {
        assertThat(fences.equals(other)).isEqualTo(equal);
        assertThat(other.equals(fences)).isEqualTo(equal);
        if (equal) {
            assertThat(other.hashCode()).isEqualTo(fences.hashCode());
        }
    }

    @Test
    void aSnapshotIsNotEqualToSomethingElse() {
        assertThat(fences.equals(Map.of("u-sh", REJECT))).isFalse();
    }

    @Test
    void theTextNamesTheFencedUnitsAndTheWrites() {
        assertThat(fences.toString()).contains("u-sh").contains(REJECT.toString()).contains(Writes.DEFAULT.toString());
    }
}
