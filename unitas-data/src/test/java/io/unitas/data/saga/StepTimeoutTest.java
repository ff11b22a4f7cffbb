package io.unitas.data.saga;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.saga.SagaRetry;
import io.unitas.core.saga.SagaState;
import io.unitas.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A step attempt that overruns its timeout is interrupted and retried; a recovery round that fails is counted. */
class StepTimeoutTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-04T10:00:00Z"));
    private final Bank bank = new Bank(clock);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @AfterEach
    void drop() {
        bank.close();
    }

    @Test
    void attemptOverrunningItsTimeout_isInterrupted_andRetried() {
        AtomicInteger attempts = new AtomicInteger();
        AtomicInteger interrupted = new AtomicInteger();
        CountDownLatch never = new CountDownLatch(1);
        Saga hanging = Saga.builder("hanging")
                .step("call", Duration.ofMillis(200), ctx -> {
                    if (attempts.incrementAndGet() == 1) {
                        try {
                            never.await(); // a peer that never answers
                        } catch (InterruptedException e) {
                            interrupted.incrementAndGet();
                            throw e;
                        }
                    }
                }, ctx -> {})
                .build();
        SagaCoordinator coordinator = SagaCoordinator.builder().dataSource(bank.sagas).saga(hanging).clock(clock)
                .meterRegistry(meters).retry(new SagaRetry(3, Duration.ZERO, Duration.ZERO)).build();

        SagaRecord done = coordinator.start("hanging", "");

        assertThat(done.status().state()).isEqualTo(SagaState.COMPLETED);
        assertThat(done.lastError()).hasValue("timed out after PT0.2S");
        assertThat(attempts.get()).isEqualTo(2);
        assertThat(meters.get("unitas.saga.step.errors").tag("step", "call").counter().count()).isEqualTo(1);
        assertThat(Bank.queryLong(bank.sagas, "SELECT attempts FROM unitas_saga_steps")).isEqualTo(2);
    }

    @Test
    void recoveryRoundThatFails_isCounted_andTheNextRoundRuns() {
        JdbcSagaCoordinator coordinator = (JdbcSagaCoordinator) SagaCoordinator.builder().dataSource(bank.sagas)
                .saga(bank.transfer()).clock(clock).meterRegistry(meters).build();
        coordinator.recoveryRound();
        assertThat(meters.get("unitas.saga.recovery.last.success").gauge().value()).isEqualTo(clock.millis());

        Bank.execute(bank.sagas, "ALTER TABLE unitas_sagas RENAME TO unitas_sagas_away");
        clock.advance(Duration.ofSeconds(5));
        coordinator.recoveryRound();
        assertThat(meters.get("unitas.saga.recovery.failures").counter().count()).isEqualTo(1);
        assertThat(meters.get("unitas.saga.recovery.last.success").gauge().value())
                .isEqualTo(clock.millis() - 5000);

        Bank.execute(bank.sagas, "ALTER TABLE unitas_sagas_away RENAME TO unitas_sagas");
        coordinator.recoveryRound();
        assertThat(meters.get("unitas.saga.recovery.last.success").gauge().value()).isEqualTo(clock.millis());
    }
}
