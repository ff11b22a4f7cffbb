package io.unitas.control.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.unitas.control.client.wire.FenceRequest;
import io.unitas.control.client.wire.SwitchoverRequest;
import io.unitas.core.Problem;

/** What the client writes, the server reads back as the same record; what is malformed is named, never defaulted. */
class WireJsonTest {

    @Test
    void aSwitchoverRequest_roundTrips_withDurationsInTheOneGrammar() {
        SwitchoverRequest sent = SwitchoverRequest.move(List.of("u-sh", "u/bj"), "eu").withMaxLag(Duration.ofMillis(250))
                .withTimeout(Duration.ofSeconds(30)).withDeadline(Instant.parse("2026-11-30T14:00:00Z"))
                .withDryRun(true).withReason("drill");

        String json = WireJson.write(sent);

        assertThat(json).contains("\"max_lag\":\"250ms\"").contains("\"timeout\":\"30s\"").doesNotContain("_ms");
        assertThat(WireJson.switchoverRequest(WireJson.tree(json)).value()).isEqualTo(sent);
    }

    @Test
    void aFenceRequest_roundTrips() {
        FenceRequest sent = new FenceRequest(List.of("u-sh"), "move", Duration.ofSeconds(10));

        assertThat(WireJson.write(sent)).contains("\"retry_after\":\"10s\"");
        assertThat(WireJson.fenceRequest(WireJson.tree(WireJson.write(sent)), "").value()).isEqualTo(sent);
    }

    @Test
    void theDeprecatedMillisecondFields_areStillRead_butOnlyAsWholeNumbers_andNotBesideTheirDuration() {
        assertThat(WireJson.switchoverRequest(WireJson.tree("{\"units\":[\"u\"],\"timeout_ms\":30000}")).value()
                           .timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(problems("{\"units\":[\"u\"],\"timeout_ms\":\"30s\"}"))
                .containsExactly(new Problem("timeout_ms", "'30s' (expected: a whole number of milliseconds >= 0;"
                                                           + " better: timeout, a duration like 500ms, 5s, 2m or 1h)"));
        assertThat(problems("{\"units\":[\"u\"],\"max_lag_ms\":5,\"max_lag\":\"5ms\"}"))
                .extracting(Problem::path).containsExactly("max_lag_ms");
    }

    @Test
    void everyMalformedField_isNamed_atOnce() {
        assertThat(problems("{\"units\":[\"u\",3],\"timeout\":\"0s\",\"force\":1,\"deadline\":\"tomorrow\","
                            + "\"target\":[\"eu\"]}"))
                .extracting(Problem::path).containsExactly("units[1]", "target", "deadline", "timeout", "force");
        assertThat(problems("[1]")).extracting(Problem::path).containsExactly("");
    }

    private static List<Problem> problems(String json) {
        WireJson.Parsed<SwitchoverRequest> read = WireJson.switchoverRequest(WireJson.tree(json));
        assertThat(read.value()).isNull();
        return read.problems();
    }
}
