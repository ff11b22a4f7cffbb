package io.unitas.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one shape of every error answer: what it requires, how it is built up, and what goes on the wire. */
class ProblemDetailTest {

    private static final ProblemDetail FENCED = ProblemDetail.of(503, "write-fenced", "unit u-sh is moving to eu");

    @Test
    void of_titlesTheProblemWithItsTypeInWordsAndNothingElse() {
        assertThat(FENCED.title()).isEqualTo("write fenced");
        assertThat(FENCED.retryAfter()).isEqualTo(Duration.ZERO);
        assertThat(FENCED.problems()).isEmpty();
        assertThat(FENCED.extensions()).isEmpty();
    }

    @Test
    void of_withARetryAfter_keepsIt_andTitlesTheTypeInWordsAsWell() {
        ProblemDetail p = ProblemDetail.of(503, "write-fenced", "unit u-sh is moving to eu", Duration.ofSeconds(7));

        assertThat(p.title()).isEqualTo("write fenced");
        assertThat(p.retryAfter()).isEqualTo(Duration.ofSeconds(7));
        assertThat(p.status()).isEqualTo(503);
        assertThat(p.detail()).isEqualTo("unit u-sh is moving to eu");
    }

    @ParameterizedTest(name = "status {0} is allowed: {1}")
    @CsvSource({"99, false", "100, true", "599, true", "600, false"})
    void theStatusIsAnHttpStatus(int status, boolean allowed) {
        if (allowed) {
            assertThat(ProblemDetail.of(status, "x", "d").status()).isEqualTo(status);
        } else {
            assertThatThrownBy(() -> ProblemDetail.of(status, "x", "d"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("status: " + status + " (expected: 100 to 599)");
        }
    }

    @Test
    void aNegativeRetryAfterIsRefused() {
        assertThatThrownBy(() -> FENCED.withRetryAfter(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retry_after: PT-0.001S (expected: >= 0)");
    }

    @Test
    void eachWithChangesOnlyItsOwnPart() {
        ProblemDetail p = FENCED.withTitle("Writes are fenced").withRetryAfter(Duration.ofSeconds(5))
                .withProblems(List.of(new Problem("ranges[2]", "overlaps"))).with("unit", "u-sh");

        assertThat(p).isEqualTo(new ProblemDetail("write-fenced", "Writes are fenced", 503, "unit u-sh is moving to eu",
                                                  Duration.ofSeconds(5), List.of(new Problem("ranges[2]", "overlaps")),
                                                  Map.of("unit", "u-sh")));
    }

    @Test
    void aLaterMemberOfTheSameNameReplacesTheEarlierAndTheOrderIsKept() {
        ProblemDetail p = FENCED.with("unit", "u-sh").with("region", "cn").with("unit", "u-hz");

        assertThat(p.extensions()).containsExactly(Map.entry("unit", "u-hz"), Map.entry("region", "cn"));
        assertThat(FENCED.extensions()).as("the original is unchanged").isEmpty();
    }

    @Test
    void theListsAreCopiedSoLaterChangesToTheSourceDoNotShow() {
        List<Problem> problems = new ArrayList<>(List.of(new Problem("a", "b")));
        Map<String, Object> extensions = new LinkedHashMap<>(Map.of("unit", "u-sh"));
        ProblemDetail p = new ProblemDetail("invalid", "invalid", 422, "d", Duration.ZERO, problems, extensions);
        problems.add(new Problem("c", "d"));
        extensions.put("region", "cn");

        assertThat(p.problems()).containsExactly(new Problem("a", "b"));
        assertThat(p.extensions()).containsOnlyKeys("unit");
    }

    @Test
    void theTypeGoesOnTheWireAsAUrnAndIsReadBack() {
        assertThat(FENCED.typeUri()).isEqualTo("urn:unitas:problem:write-fenced");
        assertThat(ProblemDetail.typeName("urn:unitas:problem:write-fenced")).isEqualTo("write-fenced");
        assertThat(ProblemDetail.typeName("https://example.com/probs/out-of-credit"))
                .as("another's type is kept whole").isEqualTo("https://example.com/probs/out-of-credit");
    }

    @ParameterizedTest(name = "a wait of {0} is sent as Retry-After: {1}")
    @CsvSource({"PT0S, 0", "PT0.001S, 1", "PT1S, 1", "PT1.5S, 2", "PT30S, 30"})
    void retryAfterSeconds_roundsUpSoThatAShortWaitIsNotSentAsZero(Duration wait, long seconds) {
        assertThat(FENCED.withRetryAfter(wait).retryAfterSeconds()).isEqualTo(seconds);
    }

    @Test
    void theTextNamesTypeStatusAndDetail() {
        assertThat(FENCED).hasToString("write-fenced (503): unit u-sh is moving to eu");
    }
}
