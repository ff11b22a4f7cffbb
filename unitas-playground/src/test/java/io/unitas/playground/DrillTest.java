package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The seed incident replayed under load, shortened: unitas keeps every invariant and fails over; the seed's setup
 * (process-only checks, a DNS switch after a TTL, local reads, region-local idempotency) shows its failures.
 */
class DrillTest {

    private static DrillResult drill(Scenario scenario, boolean naive) {
        try (Playground playground = Playground.builder().portsFrom(TestPorts.next())
                                               .mode(naive ? ShopMode.NAIVE : ShopMode.UNITAS).start()) {
            playground.awaitReady(Duration.ofSeconds(90));
            DrillResult result = Drill.builder().scenario(scenario).naive(naive).duration(Duration.ofSeconds(20))
                                      .users(6).progress(System.out::println).build().run(playground);
            System.out.println(DrillTable.of(java.util.List.of(result)));
            return result;
        }
    }

    @Test
    void db_readonly_under_unitas_keeps_every_invariant_and_moves_cn_users_to_another_region() {
        DrillResult r = drill(Scenario.DB_READONLY, false);

        assertThat(r.accountNotFound()).isZero();
        assertThat(r.duplicateOrders()).isZero();
        assertThat(r.lostCartItems()).isZero();
        assertThat(r.holds()).isTrue();
        assertThat(r.failoverMillis()).isBetween(0L, 8_000L);
        assertThat(r.requests()).isGreaterThan(30);
    }

    @Test
    void db_readonly_under_the_seeds_setup_loses_accounts_and_charges_twice() {
        DrillResult r = drill(Scenario.DB_READONLY, true);

        assertThat(r.holds()).isFalse();
        assertThat(r.accountNotFound() + r.duplicateOrders()).isPositive();
    }
}
