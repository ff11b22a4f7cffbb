package io.unitas.data.saga;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.saga.SagaState;
import io.unitas.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Two coordinators on one database: a saga is driven by the one holding its lease, never by both. */
class SagaLeaseTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-04T10:00:00Z"));
    private final Bank bank = new Bank(clock);

    @AfterEach
    void drop() {
        bank.close();
    }

    @Test
    void whileALeaseHolds_theOtherCoordinatorLeavesTheSagaAlone() {
        SagaCoordinator eu = SagaCoordinator.builder().dataSource(bank.sagas).saga(bank.transfer()).owner("eu-1")
                .clock(clock).lease(LEASE).build();
        List<Integer> euDrove = new ArrayList<>();
        SagaCoordinator cn = SagaCoordinator.builder().dataSource(bank.sagas).saga(bank.transfer()).owner("cn-1")
                .clock(clock).lease(LEASE).boundaries((n, what) -> {
                    if (!what.startsWith("applied")) {
                        clock.advance(LEASE.minusSeconds(1)); // each write renews the lease before it runs out
                        euDrove.add(eu.recover());
                    }
                }).build();

        SagaRecord done = cn.start("transfer", "alice,bob,30");

        assertThat(done.status().state()).isEqualTo(SagaState.COMPLETED);
        // The writes: recorded with the debit running, the debit's result with the credit running, the credit's.
        assertThat(euDrove).as("at each of the saga's three writes").hasSize(3).containsOnly(0);
        assertThat(bank.debits.get()).isEqualTo(1);
        assertThat(bank.credits.get()).isEqualTo(1);
        assertThat(bank.credit("alice")).isEqualTo(70);
        assertThat(bank.credit("bob")).isEqualTo(130);
    }

    @Test
    void aCoordinatorThatLostItsLease_writesNothingMore_andTheStepAppliesOnce() {
        SagaCoordinator eu = SagaCoordinator.builder().dataSource(bank.sagas).saga(bank.transfer()).owner("eu-1")
                .clock(clock).lease(LEASE).build();
        List<SagaRecord> euSaw = new ArrayList<>();
        SagaCoordinator cn = SagaCoordinator.builder().dataSource(bank.sagas).saga(bank.transfer()).owner("cn-1")
                .clock(clock).lease(LEASE).boundaries((n, what) -> {
                    if (what.startsWith("applied execute credit")) {
                        // cn stalls past its lease with the credit applied and not recorded: eu takes over.
                        clock.advance(LEASE);
                        assertThat(eu.recover()).isEqualTo(1);
                        euSaw.add(eu.find(what.substring(what.lastIndexOf(' ') + 1)).orElseThrow());
                    }
                }).build();

        SagaRecord done = cn.start("transfer", "alice,bob,30");

        assertThat(euSaw).singleElement().satisfies(r -> assertThat(r.status().state()).isEqualTo(SagaState.COMPLETED));
        assertThat(done.status().state()).isEqualTo(SagaState.COMPLETED);
        // eu completed the saga by running the credit again; the store applied it once.
        assertThat(bank.credits.get()).as("credit applied").isEqualTo(1);
        assertThat(bank.credit("bob")).isEqualTo(130);
        assertThat(bank.credit("alice")).isEqualTo(70);
        assertThat(Bank.queryLong(bank.sagas, "SELECT lease_epoch FROM unitas_sagas")).isEqualTo(2);
    }
}
