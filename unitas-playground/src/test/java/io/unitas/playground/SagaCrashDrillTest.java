package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code saga-crash} drill, both modes: with sagas the total credit is conserved and every transfer ends completed
 * or compensated although the coordinator died mid-saga and eu's database was killed; with two local transactions
 * credit is destroyed. The regions' stores are pooled, and the pools outlive eu's restart.
 */
class SagaCrashDrillTest {

    @Test
    void coordinatorAndRegionDieMidSaga_creditIsConserved_andEverySagaEnds_unlikeTwoLocalTransactions() {
        SagaCrashDrill.Result unitas = SagaCrashDrill.run(false, 60, 7, line -> { });
        SagaCrashDrill.Result naive = SagaCrashDrill.run(true, 60, 7, line -> { });
        String table = SagaCrashDrill.table(List.of(unitas, naive));
        System.out.print(table);

        assertThat(unitas.holds()).as(table).isTrue();
        assertThat(unitas.creditAfter()).isEqualTo(unitas.creditBefore());
        assertThat(unitas.completed() + unitas.compensated()).as(table).isEqualTo(unitas.transfers());
        assertThat(unitas.transfers()).as(table).isGreaterThanOrEqualTo(56);
        assertThat(unitas.compensated()).as("eu's outage outlasted some steps' retries: " + table).isPositive();
        assertThat(naive.holds()).as(table).isFalse();
        assertThat(naive.creditAfter()).as("credit destroyed: debits whose credit never came").isLessThan(
                naive.creditBefore());
        assertThat(table).contains("invariant").contains("holds").contains("BROKEN");
        // Unpooled, each statement opened a session of its own; each region's pool, the first
        // coordinator's own, and eu's pool again after its restart open a few dozen at most.
        assertThat(unitas.sessions()).as("sessions: the pools', not one per statement: " + table)
                .isPositive().isLessThanOrEqualTo(4L * SagaCrashDrill.POOL);
        assertThat(naive.sessions()).as(table).isPositive().isLessThanOrEqualTo(4L * SagaCrashDrill.POOL);
    }
}
