package io.unitas.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** One probe's outcome, as a probe hands it to its check. */
class ProbeResultTest {

    @Test
    void aProbeThatFailedBeforeSeeingAnythingIsDownWithItsReasonAndNoLag() {
        ProbeResult refused = ProbeResult.down(Duration.ofMillis(3), "connection refused");

        assertThat(refused.up()).isFalse();
        assertThat(refused.reason()).isEqualTo("connection refused");
        assertThat(refused.replicationLagMs()).isEqualTo(-1);
        assertThat(refused.details()).isEmpty();
    }

    @Test
    void aProbeThatFailedOnWhatItSawKeepsTheObservations() {
        ProbeResult lagging = ProbeResult.down(Duration.ofMillis(5), "lag 9000ms", 9000, Map.of("role", "standby"));

        assertThat(lagging.up()).isFalse();
        assertThat(lagging.replicationLagMs()).isEqualTo(9000);
        assertThat(lagging.details()).containsExactly(Map.entry("role", "standby"));
    }

    @Test
    void aLagOfZeroIsMeasuredAndBelowUnknownIsRefused() {
        assertThat(ProbeResult.up(Duration.ZERO, "primary", 0, Map.of()).replicationLagMs()).isZero();
        assertThatThrownBy(() -> ProbeResult.up(Duration.ZERO, "primary", -2, Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replication_lag_ms: -2 (expected: >= 0, or -1 for unknown)");
        assertThatThrownBy(() -> ProbeResult.down(Duration.ofMillis(-1), "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("latency: PT-0.001S (expected: >= 0)");
    }
}
