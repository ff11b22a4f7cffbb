package io.unitas.core.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.unitas.core.RegionHealth;

class HealthRollupTest {

    private static HealthRollup.Entry up(String name, Gate gate, long lagMs, long maxLagMs) {
        return new HealthRollup.Entry(name, gate, maxLagMs, new CheckReport(true, 1, "", lagMs, Map.of()));
    }

    private static HealthRollup.Entry down(String name, Gate gate, String reason) {
        return new HealthRollup.Entry(name, gate, 0, CheckReport.down(reason));
    }

    @Test
    void allChecksUpWithoutLag_isHealthyWritableWithScoreOne() {
        RegionHealth health = HealthRollup.rollUp(List.of(up("pg", Gate.HEALTHY, -1, 0), up("api", Gate.HEALTHY, -1, 0)));

        assertThat(health).isEqualTo(new RegionHealth(true, true, -1, 1.0, List.of()));
    }

    @Test
    void aCheckWithoutAMaxLag_reportsItsLag_butDoesNotLowerTheScore() {
        RegionHealth health = HealthRollup.rollUp(List.of(up("pg", Gate.HEALTHY, 800, 0)));

        assertThat(health).isEqualTo(new RegionHealth(true, true, 800, 1.0, List.of()));
    }

    @Test
    void theSeedIncident_aReadOnlyPrimaryMakesTheRegionUnhealthyAndSaysWhy() {
        RegionHealth health = HealthRollup.rollUp(List.of(
                down("pg-primary", Gate.HEALTHY, "read-only (transaction_read_only=on)"),
                up("api", Gate.HEALTHY, -1, 0)));

        assertThat(health.healthy()).isFalse();
        assertThat(health.writable()).isFalse();
        assertThat(health.score()).isZero();
        assertThat(health.reasons()).containsExactly("pg-primary: read-only (transaction_read_only=on)");
    }

    @Test
    void aFailingWritableGate_keepsTheRegionServingButNotWritable() {
        RegionHealth health = HealthRollup.rollUp(List.of(
                up("api", Gate.HEALTHY, -1, 0), down("canary", Gate.WRITABLE, "canary write failed")));

        assertThat(health.healthy()).isTrue();
        assertThat(health.writable()).isFalse();
        assertThat(health.score()).isEqualTo(0.5);
        assertThat(health.reasons()).containsExactly("canary: canary write failed");
    }

    @Test
    void aFailingCheckWithGateNone_changesNothing() {
        RegionHealth health = HealthRollup.rollUp(List.of(
                up("api", Gate.HEALTHY, -1, 0), down("redis-b", Gate.NONE, "connection refused")));

        assertThat(health).isEqualTo(new RegionHealth(true, true, -1, 1.0, List.of()));
    }

    @Test
    void lagIsTheLargestMeasuredAndLowersTheScoreByHalfItsRatioToMaxLag() {
        RegionHealth health = HealthRollup.rollUp(List.of(
                up("pg-standby", Gate.HEALTHY, 2_500, 5_000), up("redis", Gate.HEALTHY, 100, 0)));

        assertThat(health.replicationLagMs()).isEqualTo(2_500);
        assertThat(health.score()).isEqualTo(0.75);
    }

    @Test
    void lagBeyondMaxLagCountsAsRatioOne() {
        RegionHealth health = HealthRollup.rollUp(List.of(up("pg-standby", Gate.HEALTHY, 60_000, 5_000)));

        assertThat(health.score()).isEqualTo(0.5);
    }

    @Test
    void scoreIsRoundedToThreeDecimals() {
        RegionHealth health = HealthRollup.rollUp(List.of(
                up("a", Gate.HEALTHY, -1, 0), up("b", Gate.HEALTHY, -1, 0), down("c", Gate.WRITABLE, "x")));

        assertThat(health.score()).isEqualTo(0.667);
    }
}
