package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The partition drill on real PostgreSQL, in process and through a real Kafka broker: under unitas nothing
 * acknowledged is lost across the merge, every address edited on both sides is listed as siblings, and the regions
 * converge within the window with every injected divergence repaired; the naive setup (whole values, last writer wins,
 * no reconciliation) loses writes on the same workload and does not converge.
 */
class PartitionDrillTest {

    /**
     * The drill's own workload (20 users per unit, 5 writes each). Its partitions took 62 s while every statement
     * opened a PostgreSQL session of its own; through each region's pool they take a few seconds.
     */
    private static final PartitionDrill.Settings SETTINGS = PartitionDrill.Settings.defaults();
    /**
     * The drill's 12 s window is what a run on an idle machine shows (docs/playground.md); a loaded build saw unitas
     * converge in 12.4 s. Nothing converges without reconciliation, so the naive run keeps the default window (it
     * waits all of it).
     */
    private static final PartitionDrill.Settings LOADED = new PartitionDrill.Settings(
            SETTINGS.usersPerUnit(), SETTINGS.writesPerUser(), Duration.ofSeconds(30), SETTINGS.reconcileEvery());

    @Test
    void unitas_keeps_every_acknowledged_write_across_the_partition_and_converges_where_naive_loses_writes() {
        PartitionDrill.Result unitas = PartitionDrill.run(false, ReplicationKind.EMBEDDED, LOADED,
                                                          System.out::println);
        PartitionDrill.Result naive = PartitionDrill.run(true, ReplicationKind.EMBEDDED, SETTINGS,
                                                         System.out::println);
        System.out.print(PartitionDrill.table(List.of(unitas, naive)));

        assertThat(unitas.cartLost()).isZero();
        assertThat(unitas.incrementsLost()).isZero();
        assertThat(unitas.ordersLost()).isZero();
        assertThat(unitas.conflicts()).isPositive();
        assertThat(unitas.conflictsListed()).isEqualTo(unitas.conflicts());
        assertThat(unitas.injected()).isPositive();
        assertThat(unitas.repaired()).isEqualTo(unitas.injected());
        assertThat(unitas.convergedMillis()).isBetween(0L, unitas.windowMillis());
        assertThat(unitas.holds()).isTrue();
        assertThat(unitas.sessions()).as("sessions opened: each region's pool, not one per statement")
                                     .isLessThanOrEqualTo(3L * PartitionDrill.POOL);
        assertThat(naive.sessions()).isLessThanOrEqualTo(3L * PartitionDrill.POOL);

        assertThat(naive.cartLost() + naive.incrementsLost() + naive.ordersLost()).as("naive loses writes")
                                                                                 .isPositive();
        assertThat(naive.conflictsListed()).isZero();
        assertThat(naive.holds()).isFalse();
    }

    @Test
    void through_kafka_the_partition_keeps_every_acknowledged_write_and_converges() {
        PartitionDrill.Result unitas = PartitionDrill.run(false, ReplicationKind.KAFKA, LOADED, System.out::println);
        System.out.print(PartitionDrill.table(List.of(unitas)));

        assertThat(unitas.cartLost()).isZero();
        assertThat(unitas.incrementsLost()).isZero();
        assertThat(unitas.ordersLost()).isZero();
        assertThat(unitas.conflictsListed()).isEqualTo(unitas.conflicts());
        assertThat(unitas.repaired()).isEqualTo(unitas.injected());
        assertThat(unitas.holds()).isTrue();
        assertThat(unitas.sessions()).isLessThanOrEqualTo(3L * PartitionDrill.POOL);
    }
}
