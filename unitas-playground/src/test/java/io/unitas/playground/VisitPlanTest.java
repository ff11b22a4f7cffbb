package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class VisitPlanTest {

    private static final List<Region> REGIONS = List.of(Region.of("cn"), Region.of("eu"), Region.of("us"));

    private static List<VisitPlan> visits(long seed, int virtualUser, int count) {
        List<VisitPlan> plans = new ArrayList<>();
        for (int n = 0; n < count; n++) {
            plans.add(VisitPlan.draw(seed, virtualUser, n, REGIONS, 30_000));
        }
        return plans;
    }

    @Test
    void theSameSeed_offersTheSameVisits_whateverElseDrew() {
        List<VisitPlan> first = visits(1, 3, 200);
        visits(2, 3, 50); // draws in between change nothing
        assertThat(visits(1, 3, 200)).isEqualTo(first);
        assertThat(VisitPlan.firstDue(1, 3, 250)).isEqualTo(VisitPlan.firstDue(1, 3, 250)).isBetween(0L, 250L);
    }

    @Test
    void anotherSeedOrVirtualUser_drawsOtherVisits() {
        assertThat(visits(2, 3, 50)).isNotEqualTo(visits(1, 3, 50));
        assertThat(visits(1, 4, 50)).isNotEqualTo(visits(1, 3, 50));
    }

    @Test
    void halfTheVisitsAreOfTheFaultedRegionsUsers_andAboutAThirdOfCheckoutsLoseTheirResponse() {
        List<VisitPlan> plans = new ArrayList<>();
        for (int user = 0; user < 8; user++) {
            plans.addAll(visits(1, user, 1000));
        }
        long faulted = plans.stream().filter(v -> v.home().equals(REGIONS.get(0))).count();
        long returning = plans.stream().filter(VisitPlan::returning).count();
        long lost = plans.stream().filter(VisitPlan::loseResponse).count();
        assertThat(faulted).isBetween(3800L, 4200L);
        assertThat(returning).isBetween(3800L, 4200L);
        assertThat(lost).isBetween(2200L, 2600L);
        assertThat(plans).extracting(VisitPlan::home).contains(REGIONS.get(1), REGIONS.get(2));
        assertThat(plans).allSatisfy(v -> assertThat(v.resendAfter()).isBetween(1000L, 7000L));
    }
}
