package io.unitas.core.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

import io.unitas.core.Region;
import io.unitas.core.RouteDecision;

/** The values a replay reads and writes: a user's load, and where the user was placed. */
class PlacementTest {

    private static final Region EU = Region.of("eu");

    @Test
    void aUserOfNoLoad_isAllowed_andANegativeOrUnknownLoadIsNot() {
        assertThat(new UserLoad("alice", "cn", 0).load()).isZero();
        assertThatIllegalArgumentException().isThrownBy(() -> new UserLoad("alice", "cn", -0.5))
                                            .withMessage("load: -0.5 (expected: a number >= 0)");
        assertThatIllegalArgumentException().isThrownBy(() -> new UserLoad("alice", "cn", Double.NaN))
                                            .withMessage("load: NaN (expected: a number >= 0)");
    }

    @Test
    void aPlacementNamesATarget_exactlyWhenItsOutcomeHasOne() {
        assertThat(new Placement("alice", "cn", EU, RouteDecision.Outcome.FAILOVER).target()).isEqualTo(EU);
        assertThat(new Placement("bob", "cn", null, RouteDecision.Outcome.NO_HEALTHY_REGION).target()).isNull();

        assertThatIllegalArgumentException()
                .isThrownBy(() -> new Placement("alice", "cn", null, RouteDecision.Outcome.FAILOVER))
                .withMessage("target: null (expected: a region for outcome failover)");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new Placement("bob", "cn", EU, RouteDecision.Outcome.NO_HEALTHY_REGION))
                .withMessage("target: eu (expected: none for outcome no_healthy_region)");
    }
}
