package io.unitas.core.switchover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.unitas.core.Problem;
import io.unitas.core.Region;

class SwitchoverCooldownTest {

    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private final SwitchoverCooldown cooldown = new SwitchoverCooldown(Duration.ofMinutes(1));

    /** A switchover of {@code units} to eu started at T0 and flipped (then completed) {@code flipAfter} later. */
    private static Switchover flipped(String id, Duration flipAfter, String... units) {
        Switchover s = Switchover.start(id, List.of(units), EU, Map.of(units[0], CN), 500, T0.plusSeconds(60),
                                        false, "ops", "", T0);
        return s.advance(T0, -1).advance(T0.plus(flipAfter), 10).advance(T0.plus(flipAfter).plusMillis(5), 10);
    }

    @Test
    void aUnitMovedWithinTheCooldown_isRefused_namingTheUnitAndWhenItMayMove() {
        List<Problem> refusals = cooldown.refusals(List.of("u-bj", "u-sh"),
                                                   List.of(flipped("sw-1", Duration.ofSeconds(2), "u-sh")),
                                                   T0.plusSeconds(30));

        assertThat(refusals).containsExactly(new Problem("units[1]",
                "unit 'u-sh' moved to eu at 2026-12-01T10:00:02Z (switchover sw-1); it may move again at "
                + "2026-12-01T10:01:02Z (switchover cooldown PT1M)"));
    }

    @Test
    void aUnitMayMoveOnceTheCooldownHasPassedSinceItsFlip() {
        List<Switchover> past = List.of(flipped("sw-1", Duration.ofSeconds(2), "u-sh"));
        assertThat(cooldown.refusals(List.of("u-sh"), past, T0.plusSeconds(61))).hasSize(1);
        assertThat(cooldown.refusals(List.of("u-sh"), past, T0.plusSeconds(62))).isEmpty();
    }

    @Test
    void aSwitchoverThatNeverFlipped_movedNothing_andStartsNoCooldown() {
        Switchover rolledBack = Switchover.start("sw-1", List.of("u-sh"), EU, Map.of("u-sh", CN), 500,
                                                 T0.plusSeconds(1), false, "ops", "", T0)
                                          .advance(T0, -1).advance(T0.plusSeconds(2), -1);
        assertThat(rolledBack.phase()).isEqualTo(SwitchoverPhase.ROLLED_BACK);
        assertThat(cooldown.refusals(List.of("u-sh"), List.of(rolledBack), T0.plusSeconds(3))).isEmpty();
    }

    @Test
    void theLatestFlipOfTheUnitCounts() {
        List<Switchover> past = List.of(flipped("sw-1", Duration.ofSeconds(2), "u-sh"),
                                        flipped("sw-2", Duration.ofSeconds(50), "u-sh", "u-bj"));
        assertThat(cooldown.refusals(List.of("u-sh"), past, T0.plusSeconds(100)).get(0).message())
                .contains("switchover sw-2").contains("10:01:50Z");
    }

    @Test
    void zeroTurnsTheRuleOff_andNegativeIsRefused() {
        assertThat(new SwitchoverCooldown(Duration.ZERO)
                           .refusals(List.of("u-sh"), List.of(flipped("sw-1", Duration.ZERO, "u-sh")), T0))
                .isEmpty();
        assertThatIllegalArgumentException().isThrownBy(() -> new SwitchoverCooldown(Duration.ofSeconds(-1)))
                                            .withMessage("switchover_cooldown: PT-1S (expected: >= 0)");
    }
}
