package io.unitas.data.saga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.saga.SagaRetry;
import io.unitas.core.saga.SagaState;
import io.unitas.core.saga.SagaStatus;
import io.unitas.testkit.MutableClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A compensation that keeps failing: retried with backoff, then stuck, listed, counted, and ended by an operator. */
class StuckSagaTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-04T10:00:00Z"));
    private final Bank bank = new Bank(clock);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final SagaCoordinator coordinator = SagaCoordinator.builder().dataSource(bank.sagas)
            .saga(bank.transfer()).owner("cn-1").clock(clock).meterRegistry(meters)
            .retry(new SagaRetry(3, Duration.ofSeconds(1), Duration.ofSeconds(10))).build();

    @AfterEach
    void drop() {
        bank.close();
    }

    private double stuckGauge() {
        return meters.get("unitas.saga.stuck").gauge().value();
    }

    @Test
    void refundKeepsFailing_backsOff_thenStuck_thenAnOperatorRetries() {
        bank.refundFails = true;
        SagaRecord first = coordinator.start("transfer", "alice,carol,30");
        assertThat(first.status()).isEqualTo(new SagaStatus(SagaState.COMPENSATING, 0, 1, true));
        assertThat(first.owner()).as("released during its backoff").isEmpty();

        assertThat(coordinator.recover()).as("not due before its backoff of 1 s").isZero();
        clock.advance(Duration.ofSeconds(1));
        assertThat(coordinator.recover()).isEqualTo(1);
        assertThat(coordinator.find(first.id()).orElseThrow().status().attempts()).isEqualTo(2);
        clock.advance(Duration.ofSeconds(1));
        assertThat(coordinator.recover()).as("the second backoff is 2 s").isZero();
        clock.advance(Duration.ofSeconds(1));
        assertThat(coordinator.recover()).isEqualTo(1);

        assertThat(coordinator.stuck()).singleElement().satisfies(r -> {
            assertThat(r.status()).isEqualTo(new SagaStatus(SagaState.FAILED, 0, 3, true));
            assertThat(r.lastError()).hasValue("SQLException: refund: the store refuses writes");
        });
        assertThat(stuckGauge()).isEqualTo(1);
        assertThat(bank.credit("alice")).as("the debit stands until the refund works").isEqualTo(70);
        clock.advance(Duration.ofHours(1));
        assertThat(coordinator.recover()).as("a stuck saga waits for an operator").isZero();

        bank.refundFails = false;
        SagaRecord retried = coordinator.retry(first.id(), "anna@ops", "refund store writable again");
        assertThat(retried.status().state()).isEqualTo(SagaState.COMPENSATED);
        assertThat(bank.credit("alice")).isEqualTo(100);
        assertThat(bank.total()).isEqualTo(300);
        assertThat(stuckGauge()).isZero();
        assertThat(interventions()).isEqualTo("anna@ops|retry|refund store writable again|"
                                              + clock.millis());
    }

    @Test
    void stuckSaga_resolvedByHand_isRecorded_andOnlyAStuckSagaIsResolved() {
        bank.refundFails = true;
        SagaRecord first = coordinator.start("transfer", "alice,carol,30");
        for (int i = 0; i < 2; i++) {
            clock.advance(Duration.ofSeconds(10));
            coordinator.recover();
        }
        assertThat(coordinator.stuck()).extracting(SagaRecord::id).containsExactly(first.id());

        SagaRecord resolved = coordinator.resolve(first.id(), SagaState.COMPENSATED, "bo@ops",
                                                  "refunded 30 to alice by hand, ticket 4711");
        assertThat(resolved.status().state()).isEqualTo(SagaState.COMPENSATED);
        assertThat(coordinator.stuck()).isEmpty();
        assertThat(interventions()).isEqualTo("bo@ops|resolve compensated|refunded 30 to alice by hand, ticket 4711|"
                                              + clock.millis());

        assertThatThrownBy(() -> coordinator.resolve(first.id(), SagaState.COMPLETED, "bo@ops", "again"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("saga " + first.id() + ": compensated (expected: failed; only a stuck saga is retried"
                            + " or resolved)");
        assertThatThrownBy(() -> coordinator.retry(first.id(), "", "why"))
                .hasMessage("saga " + first.id() + ": retry by '' because 'why' (expected: who acts and why, both"
                            + " recorded)");
    }

    private String interventions() {
        try (Connection c = bank.sagas.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT who, action, reason, at FROM unitas_saga_interventions")) {
            rs.next();
            String row = rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3) + "|" + rs.getLong(4);
            assertThat(rs.next()).as("one intervention").isFalse();
            return row;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
