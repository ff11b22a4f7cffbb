package io.unitas.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.unitas.core.Problem;
import io.unitas.core.ProblemDetail;

class ProblemJsonTest {

    @Test
    void writesRfc9457Members_typeAsAUnitasUrn() {
        ProblemDetail p = ProblemDetail.of(503, "write-fenced", "unit u-sh is fenced").withRetryAfter(Duration.ofSeconds(2));
        assertThat(new String(ProblemJson.encode(p), StandardCharsets.UTF_8)).isEqualTo(
                "{\"type\":\"urn:unitas:problem:write-fenced\",\"title\":\"write fenced\",\"status\":503,"
                + "\"detail\":\"unit u-sh is fenced\"}");
    }

    @Test
    void aDocumentsProblemsAndExtensionsRoundTrip() {
        ProblemDetail p = ProblemDetail.of(422, "invalid-document", "2 problems").withTitle("The document is invalid")
                                       .withProblems(List.of(new Problem("ranges[2]", "overlaps"),
                                                             new Problem("center", "unknown region 'r'")))
                                       .with("revision", 7);
        ProblemDetail back = ProblemJson.decode(ProblemJson.encode(p), 500, Duration.ZERO);
        assertThat(back.type()).isEqualTo("invalid-document");
        assertThat(back.title()).isEqualTo("The document is invalid");
        assertThat(back.status()).isEqualTo(422);
        assertThat(back.problems()).isEqualTo(p.problems());
        assertThat(back.extensions()).containsOnlyKeys("revision");
        assertThat(back.extensions().get("revision").toString()).isEqualTo("7");
    }

    @Test
    void missingMembersTakeTheResponsesStatusAndRetryAfter() {
        ProblemDetail p = ProblemJson.decode("{\"detail\":\"busy\"}".getBytes(StandardCharsets.UTF_8), 429,
                                             Duration.ofSeconds(3));
        assertThat(p.type()).isEqualTo("about:blank");
        assertThat(p.status()).isEqualTo(429);
        assertThat(p.retryAfterSeconds()).isEqualTo(3);
    }

    @Test
    void anotherSystemsTypeUriIsKeptWhole() {
        ProblemDetail p = ProblemJson.decode(
                "{\"type\":\"https://example.com/probs/out-of-credit\",\"status\":403}".getBytes(StandardCharsets.UTF_8),
                403, Duration.ZERO);
        assertThat(p.type()).isEqualTo("https://example.com/probs/out-of-credit");
        assertThat(p.extensions()).isEqualTo(Map.of());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "[]", "\"text\"", "{", "42"})
    void aBodyThatIsNotAnObjectIsRefusedSayingWhatWasExpected(String body) {
        assertThatThrownBy(() -> ProblemJson.decode(body.getBytes(StandardCharsets.UTF_8), 500, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("problem body: ")
                .hasMessageEndingWith("(expected: an RFC 9457 object)");
    }

    @Test
    void retryAfterIsRoundedUpToWholeSeconds() {
        assertThat(ProblemDetail.of(503, "x", "y").withRetryAfter(Duration.ofMillis(200)).retryAfterSeconds())
                .isEqualTo(1);
        assertThat(ProblemDetail.of(503, "x", "y").retryAfterSeconds()).isZero();
    }
}
