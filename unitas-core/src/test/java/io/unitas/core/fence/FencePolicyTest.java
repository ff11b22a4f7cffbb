package io.unitas.core.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** How a fenced unit treats writes, and the smallest settings each kind of fence allows. */
class FencePolicyTest {

    @Test
    void aRejectFenceRefusesAtNoRateAndOneSecondIsTheShortestRetryAfter() {
        FencePolicy reject = FencePolicy.reject(Duration.ofSeconds(1));

        assertThat(reject).isEqualTo(new FencePolicy(FencePolicy.Mode.REJECT, 0, 0, Duration.ofSeconds(1)));
        assertThatThrownBy(() -> FencePolicy.reject(Duration.ofMillis(999)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retry_after: PT0.999S (expected: >= 1s)");
    }

    @Test
    void aThrottleNeedsAFiniteRateAndABurstOfAtLeastOne() {
        assertThat(FencePolicy.throttle(0.5, 1, Duration.ofSeconds(2)).burst()).isEqualTo(1);
        assertThatThrownBy(() -> FencePolicy.throttle(5, 0, Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("burst: 0 (expected: >= 1)");
        assertThatThrownBy(() -> FencePolicy.throttle(Double.POSITIVE_INFINITY, 1, Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("writes_per_second: Infinity (expected: > 0)");
    }
}
