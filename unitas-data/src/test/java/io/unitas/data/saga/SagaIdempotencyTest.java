package io.unitas.data.saga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.Region;
import io.unitas.data.Home;
import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyResult;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.store.StoredResponse;
import io.unitas.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A step that calls a service rather than writing a store: its request carries the step's idempotency key, and the
 * service's {@link Idempotency} (records in eu's PostgreSQL, bob's home) answers a re-run after a crash with the
 * stored response instead of running again.
 */
class SagaIdempotencyTest {

    private static final Region EU = Region.of("eu");
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-04T10:00:00Z"));
    private final Bank bank = new Bank(clock);
    private final IdempotencyStore euRecords = IdempotencyStore.jdbc(EU, bank.eu, clock);
    private final Idempotency bonusService = Idempotency.builder().region(EU)
            .homes(owner -> Home.of(owner, "u-eu", EU)).stores(r -> Optional.of(euRecords)).clock(clock).build();
    private final AtomicInteger granted = new AtomicInteger();

    @AfterEach
    void drop() {
        bank.close();
    }

    /** The bonus service's one operation, idempotent by its caller's key. */
    private void call(StepContext step, int amount) {
        IdempotencyResult result = bonusService.execute(step.idempotencyKey(), "bob",
                                                        Idempotency.fingerprint(step.payload(), "" + amount), () -> {
                    granted.addAndGet(amount);
                    return new StoredResponse(200, "{\"granted\":" + amount + "}");
                });
        if (result.outcome() == IdempotencyResult.Outcome.REJECTED) {
            throw new IllegalStateException("bonus service: " + result.problem());
        }
    }

    @Test
    void crashAfterTheCallApplied_theRerunIsAReplay() {
        Saga bonus = Saga.builder("bonus")
                .step("grant", Duration.ofSeconds(5), step -> call(step, 5), step -> call(step, -5))
                .build();
        SagaCoordinator first = SagaCoordinator.builder().dataSource(bank.sagas).saga(bonus).owner("cn-1")
                .clock(clock).lease(LEASE).boundaries((n, what) -> {
                    if (what.startsWith("applied execute grant")) {
                        throw new SagaCrashTest.Crash(what);
                    }
                }).build();
        assertThatThrownBy(() -> first.start("bonus", "bob")).isInstanceOf(SagaCrashTest.Crash.class);
        assertThat(granted.get()).isEqualTo(5);

        clock.advance(LEASE);
        SagaCoordinator second = SagaCoordinator.builder().dataSource(bank.sagas).saga(bonus).owner("eu-1")
                .clock(clock).lease(LEASE).build();
        assertThat(second.recover()).isEqualTo(1);

        assertThat(second.stuck()).isEmpty();
        assertThat(Bank.queryLong(bank.sagas, "SELECT COUNT(*) FROM unitas_sagas WHERE state = 'completed'"))
                .isEqualTo(1);
        assertThat(granted.get()).as("granted once: the re-run was answered from eu's record").isEqualTo(5);
    }
}
