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
import io.unitas.core.fence.FencePolicy;

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

    @Test
    void waitsOnTheMovingUnitsLag_unknownNeverFlips_zeroFlipsAtMaxLagZero() {
        Switchover s = Switchover.start("sw-1", List.of("u-sh"), EU, Map.of("u-sh", CN), 0, T0.plusSeconds(30), false,
                                        "ops", "drill", T0).advance(T0, MovingLag.unknown("u-sh lag unknown"));
        assertThat(s.phase()).isEqualTo(SwitchoverPhase.CATCHING_UP);

        assertThat(s.advance(T0.plusSeconds(1), MovingLag.unknown("u-sh lag unknown"))).isSameAs(s);
        assertThat(s.advance(T0.plusSeconds(1), new MovingLag(1, "u-sh lag 1 ms from cn to eu"))).isSameAs(s);

        Switchover flipped = s.advance(T0.plusSeconds(2), new MovingLag(0, "u-sh caught up in eu"));
        assertThat(flipped.phase()).isEqualTo(SwitchoverPhase.FLIPPED);
        assertThat(flipped.updatedAt()).isEqualTo(T0.plusSeconds(2));
        assertThat(flipped.steps().get(2).detail())
                .isEqualTo("u-sh caught up in eu (lag 0 ms <= max_lag 0 ms); home of u-sh is now eu");
    }

    @Test
    void rollsBack_whenTheMovingUnitsLagStaysUnknownPastTheDeadline() {
        Switchover s = started().advance(T0, MovingLag.unknown("u-sh lag unknown: cn reports no lag of it to eu"));

        Switchover rolledBack = s.advance(T0.plusSeconds(31), MovingLag.unknown("u-sh lag unknown: cn reports no "
                                                                                + "lag of it to eu"));

        assertThat(rolledBack.phase()).isEqualTo(SwitchoverPhase.ROLLED_BACK);
        assertThat(rolledBack.outcome()).isEqualTo("deadline 2026-11-30T14:00:30Z passed: u-sh lag unknown: cn "
                                                   + "reports no lag of it to eu; fences lifted, mapping unchanged");
    }

    @Test
    void aPromotion_fencesThenFlipsWithoutWaiting_andRecordsItsRpo() {
        Switchover p = Switchover.promote("sw-2", List.of("u-sh", "u-bj"), EU, Map.of("u-sh", CN, "u-bj", CN),
                                          Map.of("u-sh", 1_200L), T0.plusSeconds(1), false, "ops", "cn is gone", T0);
        assertThat(p.promotion()).isTrue();
        assertThat(p.rpoMs()).containsExactly(Map.entry("u-sh", 1_200L), Map.entry("u-bj", -1L));
        assertThat(p.steps().get(0).detail()).isEqualTo("promoting u-sh, u-bj to eu without waiting on lag "
                                                        + "(RPO u-sh 1200 ms, u-bj unknown)");

        MovingLag unknown = MovingLag.unknown("no fresh health report from its home cn");
        Switchover fenced = p.advance(T0.plusSeconds(5), unknown);
        assertThat(fenced.phase()).isEqualTo(SwitchoverPhase.CATCHING_UP);
        Switchover flipped = fenced.advance(T0.plusSeconds(6), unknown);
        assertThat(flipped.phase()).isEqualTo(SwitchoverPhase.FLIPPED);
        assertThat(flipped.steps().get(2).detail()).startsWith("promoted without waiting on lag (RPO u-sh 1200 ms");
        Switchover done = flipped.advance(T0.plusSeconds(7), unknown);
        assertThat(done.phase()).isEqualTo(SwitchoverPhase.COMPLETED);
        assertThat(done.rpoMs()).isEqualTo(p.rpoMs());
    }

    @Test
    void aPromotionsFence_tellsRefusedWritesToComeBackAfterATick_atLeastASecond() {
        Switchover p = Switchover.promote("sw-2", List.of("u-sh"), EU, Map.of("u-sh", CN), Map.of("u-sh", 800L),
                                          T0.plusSeconds(60), false, "failover-policy", "cn down", T0);
        Instant fenced = T0.plusMillis(100);

        assertThat(p.fenceRetryAfter(fenced, Duration.ofMillis(100))).isEqualTo(Duration.ofSeconds(1));
        assertThat(p.fenceRetryAfter(fenced, Duration.ofMillis(2_500))).isEqualTo(Duration.ofSeconds(3));
        assertThat(p.fenceRetryAfter(fenced, Duration.ofMinutes(1))).isEqualTo(FencePolicy.DEFAULT_RETRY_AFTER);
    }

    @Test
    void aSwitchoversFence_tellsRefusedWritesItsRemainingDeadline_neverMoreThanTheDefault() {
        Switchover s = Switchover.start("sw-1", List.of("u-sh"), EU, Map.of("u-sh", CN), 500, T0.plusSeconds(3),
                                        false, "failover-policy", "cn lagging", T0);
        Duration tick = Duration.ofMillis(100);

        assertThat(s.fenceRetryAfter(T0.plusMillis(100), tick)).isEqualTo(Duration.ofSeconds(3)); // 2.9 s, rounded up
        assertThat(s.fenceRetryAfter(T0.plusMillis(2_500), tick)).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.fenceRetryAfter(T0.plusSeconds(9), tick)).isEqualTo(Duration.ofSeconds(1)); // past: at least 1 s
        assertThat(started().fenceRetryAfter(T0.plusMillis(100), tick)).isEqualTo(FencePolicy.DEFAULT_RETRY_AFTER);
    }

    @Test
    void aSwitchover_isNoPromotion() {
        assertThat(started().promotion()).isFalse();
        assertThat(started().rpoMs()).isEmpty();
    }

    @Test
    void aPromotion_statesItsRpoInTimeAndChanges_whereTheyWereCounted() {
        Switchover p = Switchover.promote("sw-2", List.of("u-sh", "u-bj"), EU, Map.of("u-sh", CN, "u-bj", CN),
                                          Map.of("u-sh", 1_000L), Map.of("u-sh", 3L, "u-bj", -1L),
                                          T0.plusSeconds(60), false, "ops", "cn gone", T0);

        assertThat(p.rpoChanges()).containsExactly(Map.entry("u-sh", 3L), Map.entry("u-bj", -1L));
        assertThat(p.steps().get(0).detail()).endsWith("(RPO u-sh 1000 ms (3 changes), u-bj unknown)");
        assertThat(Switchover.promote("sw-3", List.of("u-sh"), EU, Map.of("u-sh", CN), Map.of("u-sh", 1_000L),
                                      Map.of("u-sh", -1L), T0.plusSeconds(60), false, "ops", "", T0).rpoChanges())
                .as("none counted: none recorded").isEmpty();
    }
}
