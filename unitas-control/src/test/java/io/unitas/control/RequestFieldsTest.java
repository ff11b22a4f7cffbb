package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.testkit.MutableClock;

/**
 * A request's fields are read as what the document says they are: a duration in the one grammar ({@code "30s"}),
 * a boolean, a list of ids; a value of another type or grammar is a 400 problem naming the field, never read as 0
 * or false. Every request is refused or a dry run, so the tests share one server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestFieldsTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");

    @TempDir
    static Path dir; // static: JUnit fills an instance field only after the class's @BeforeAll

    private ControlServer server;
    private RawClient operator;

    @BeforeAll
    void start() {
        server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir))
                              .clock(new MutableClock(T0)).start();
        RawClient admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
        operator = RawClient.of(server.uri(), Fixtures.OPERATOR.secret());
        Fixtures.seed(admin, T0, 50);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private JsonNode refused(String path, String body) {
        ControlResponse res = operator.post(path, body);
        assertThat(res.status()).as(res.body()).isEqualTo(400);
        return res.json();
    }

    private static void assertNames(JsonNode problem, String field, String expected) {
        assertThat(problem.path("problems").findValuesAsText("path")).containsExactly(field);
        assertThat(problem.path("problems").get(0).path("message").asText()).contains(expected);
    }

    @Test
    void aTimeoutInMillisecondsGivenAsText_isRefusedNamingTheField_notReadAsZero() {
        assertNames(refused("/api/v1/switchovers", "{\"units\":[\"u-sh\"],\"target\":\"eu\",\"timeout_ms\":\"30s\"}"),
                    "timeout_ms", "expected: a whole number of milliseconds");
    }

    @Test
    void aTimeout_isADurationInTheOneGrammar() {
        assertNames(refused("/api/v1/switchovers", "{\"units\":[\"u-sh\"],\"target\":\"eu\",\"timeout\":30000}"),
                    "timeout", "expected: a duration");
        assertNames(refused("/api/v1/switchovers", "{\"units\":[\"u-sh\"],\"target\":\"eu\",\"timeout\":\"30\"}"),
                    "timeout", "expected: a duration");

        ControlResponse planned = operator.post("/api/v1/switchovers",
                "{\"units\":[\"u-sh\"],\"target\":\"eu\",\"timeout\":\"30s\",\"max_lag\":\"250ms\",\"dry_run\":true}");
        assertThat(planned.status()).as(planned.body()).isEqualTo(200);
        assertThat(planned.json().path("plan").path("target").asText()).isEqualTo("eu");
    }

    @Test
    void aMaxLag_isADurationInTheOneGrammar() {
        assertNames(refused("/api/v1/switchovers", "{\"units\":[\"u-sh\"],\"target\":\"eu\",\"max_lag\":\"fast\"}"),
                    "max_lag", "expected: a duration");
        assertNames(refused("/api/v1/switchovers", "{\"units\":[\"u-sh\"],\"target\":\"eu\",\"max_lag_ms\":\"1s\"}"),
                    "max_lag_ms", "expected: a whole number of milliseconds");
    }

    @Test
    void aFlagThatIsNoBoolean_isRefused_notReadAsFalse() {
        assertNames(refused("/api/v1/switchovers", "{\"units\":[\"u-sh\"],\"target\":\"eu\",\"dry_run\":\"yes\"}"),
                    "dry_run", "expected: true or false");
    }

    @Test
    void unitsThatAreNoListOfIds_areRefused() {
        assertNames(refused("/api/v1/switchovers", "{\"units\":\"u-sh\",\"target\":\"eu\"}"),
                    "units", "expected: a list of unit ids");
        assertNames(refused("/api/v1/fences", "{\"units\":[7],\"reason\":\"x\"}"),
                    "units[0]", "expected: a unit id");
    }

    @Test
    void aFenceRetryAfter_isADurationInTheOneGrammar() {
        assertNames(refused("/api/v1/fences", "{\"units\":[\"u-sh\"],\"retry_after\":10}"),
                    "retry_after", "expected: a duration");
    }
}
