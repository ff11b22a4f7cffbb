package io.unitas.core.switchover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;

class SwitchoverTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");
    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");

    private static Switchover started() {
        return Switchover.start("sw-1", List.of("u-sh"), EU, Map.of("u-sh", CN), 500, T0.plusSeconds(30), false,
                                "ops", "drill", T0);
    }

    @Test
    void aMaxLagOfZero_flipsOnlyOnceTheTargetHasCaughtUpFully() {
        Switchover s = Switchover.start("sw-1", List.of("u-sh"), EU, Map.of("u-sh", CN), 0, T0.plusSeconds(30), false,
                                        "ops", "drill", T0).advance(T0.plusMillis(10), 5_000);

        assertThat(s.advance(T0.plusSeconds(1), 1)).isSameAs(s);
        assertThat(s.advance(T0.plusSeconds(1), 0).phase()).isEqualTo(SwitchoverPhase.FLIPPED);
    }

    @Test
    void updatedAt_isWhenTheLastStepHappened() {
        Switchover s = started();
        assertThat(s.updatedAt()).isEqualTo(T0);
        assertThat(s.advance(T0.plusSeconds(2), 5_000).updatedAt()).isEqualTo(T0.plusSeconds(2));
    }

    @Test
    void fencesFirst_thenWaitsWhileLagIsAboveMax_thenFlips_thenUnfences() {
        Switchover s = started().advance(T0.plusMillis(10), 5_000);
        assertThat(s.phase()).isEqualTo(SwitchoverPhase.CATCHING_UP);
        assertThat(s.phase().fenced()).isTrue();

        assertThat(s.advance(T0.plusSeconds(1), 501)).isSameAs(s);
        assertThat(s.advance(T0.plusSeconds(1), RegionHealth.UNKNOWN_LAG)).isSameAs(s);

        Switchover flipped = s.advance(T0.plusSeconds(2), 500);
        assertThat(flipped.phase()).isEqualTo(SwitchoverPhase.FLIPPED);
        assertThat(flipped.steps().get(2).detail()).contains("lag 500 ms <= max_lag 500 ms");

        Switchover done = flipped.advance(T0.plusSeconds(3), 9_999);
        assertThat(done.phase()).isEqualTo(SwitchoverPhase.COMPLETED);
        assertThat(done.phase().terminal()).isTrue();
        assertThat(done.steps()).extracting(SwitchoverStep::phase).containsExactly(
                SwitchoverPhase.FENCING, SwitchoverPhase.CATCHING_UP, SwitchoverPhase.FLIPPED,
                SwitchoverPhase.COMPLETED);
        assertThat(done.advance(T0.plusSeconds(99), 0)).isSameAs(done);
    }

    @Test
    void rollsBack_whenTheDeadlinePassesBeforeTheTargetCatchesUp() {
        Switchover s = started().advance(T0, 2_000);
        assertThat(s.advance(T0.plusSeconds(30), 2_000)).isSameAs(s);

        Switchover rolledBack = s.advance(T0.plusSeconds(30).plus(Duration.ofMillis(1)), 2_000);

        assertThat(rolledBack.phase()).isEqualTo(SwitchoverPhase.ROLLED_BACK);
        assertThat(rolledBack.outcome()).contains("target eu lag 2000 ms > max_lag 500 ms");
        assertThat(rolledBack.phase().fenced()).isFalse();
    }

    @Test
    void rollsBackBeforeFencing_whenResumedAfterTheDeadline() {
        Switchover s = started().advance(T0.plusSeconds(31), 0);

        assertThat(s.phase()).isEqualTo(SwitchoverPhase.ROLLED_BACK);
        assertThat(s.outcome()).contains("passed before fencing");
    }

    @Test
    void flipsEvenAfterTheDeadline_whenTheLagIsAlreadyLowEnough() {
        Switchover s = started().advance(T0, 0).advance(T0.plusSeconds(60), 100);

        assertThat(s.phase()).isEqualTo(SwitchoverPhase.FLIPPED);
    }

    @Test
    void abort_beforeTheFlip_endsWithTheOldMapping_afterIt_isRefused() {
        Switchover catchingUp = started().advance(T0, 2_000);
        Switchover aborted = catchingUp.abort(T0.plusSeconds(1), "ops", "wrong unit");
        assertThat(aborted.phase()).isEqualTo(SwitchoverPhase.ABORTED);
        assertThat(aborted.outcome()).isEqualTo("aborted by ops: wrong unit");

        Switchover flipped = catchingUp.advance(T0.plusSeconds(1), 0);
        assertThat(flipped.abortable()).isFalse();
        assertThatThrownBy(() -> flipped.abort(T0, "ops", ""))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("switchover sw-1: flipped (expected: fencing or catching_up to abort)");
    }

    @Test
    void rejectsANegativeMaxLag() {
        assertThatThrownBy(() -> Switchover.start("sw-1", List.of("u"), EU, Map.of(), -1, T0, false, "", "", T0))
                .hasMessage("max_lag_ms: -1 (expected: >= 0)");
    }
}
