package io.unitas.core.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

class FenceRecordTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");

    @Test
    void aFenceNamingASwitchover_isThatSwitchovers_andOneWithoutIsAnOperators() {
        assertThat(new FenceRecord("u-sh", "switchover sw-1 to eu", T0, "sw-1").ownedBySwitchover()).isTrue();
        assertThat(new FenceRecord("u-sh", "db repair", T0, "").ownedBySwitchover()).isFalse();
    }

    @Test
    void aFenceThatDoesNotSay_tellsTheDefault_andOneThatDoes_atLeastASecond() {
        assertThat(new FenceRecord("u-sh", "db repair", T0, "").retryAfter())
                .isEqualTo(FencePolicy.DEFAULT_RETRY_AFTER);
        assertThat(new FenceRecord("u-sh", "switchover sw-2 to eu", T0, "sw-2", Duration.ofSeconds(1)).retryAfter())
                .isEqualTo(Duration.ofSeconds(1));
        assertThatThrownBy(() -> new FenceRecord("u-sh", "x", T0, "sw-2", Duration.ofMillis(500)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("retry_after: PT0.5S (expected: >= 1s)");
    }
}
