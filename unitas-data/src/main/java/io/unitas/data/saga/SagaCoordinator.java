package io.unitas.data.saga;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.saga.SagaRetry;
import io.unitas.core.saga.SagaState;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Runs sagas and recovers them: each saga's status is written to PostgreSQL before and after every step, by the
 * coordinator holding the saga's lease (a row lock in time: owner, epoch, expiry), so a coordinator that crashed at
 * any point is replaced by any other, or by itself restarted, once the lease expires, and two never drive one saga.
 * Retries back off by the injected clock; a saga whose retries ran out where it can neither go on nor go back is
 * stuck ({@link SagaState#FAILED}): listed by {@link #stuck}, counted by the gauge {@code unitas.saga.stuck}, and
 * ended by an operator's {@link #retry} or {@link #resolve}, each recorded with who, when and why.
 *
 * <pre>{@code
 * SagaCoordinator coordinator = SagaCoordinator.builder()
 *         .dataSource(sagaDb).saga(transfer).owner("shop-cn-1").build();
 * SagaRecord done = coordinator.start("transfer", "{\"from\":\"u1\",\"to\":\"u2\",\"amount\":5}");
 * coordinator.recover();   // on a schedule: drives every saga due whose lease is free or expired
 * }</pre>
 */
public interface SagaCoordinator {

    /** A builder; {@link Builder#dataSource} and at least one {@link Builder#saga} are required. */
    static Builder builder() {
        return new Builder();
    }

    /**
     * Records a new saga of the saga named {@code saga} with {@code payload} and drives it as far as it goes now:
     * to its end, to a retry's backoff, or to stuck.
     *
     * @throws IllegalArgumentException when no saga of that name was registered
     */
    SagaRecord start(String saga, String payload);

    /**
     * Drives every saga not ended, due, and whose lease is free or expired: the work after a crash, and the
     * retries after their backoff. Returns how many it drove.
     */
    int recover();

    /**
     * Calls {@link #recover} now and then every {@code period} on a thread of its own until closed. A round that
     * throws is logged and counted ({@code unitas.saga.recovery.failures}) and the next round runs; the gauge
     * {@code unitas.saga.recovery.last.success} holds the clock's time of the last round that completed.
     */
    AutoCloseable recoverEvery(Duration period);

    /** The saga {@code id}, as persisted. */
    Optional<SagaRecord> find(String id);

    /** The stuck sagas ({@link SagaState#FAILED}), oldest change first; also refreshes the stuck gauge. */
    List<SagaRecord> stuck();

    /**
     * An operator retries the stuck saga {@code id} from where it stopped, attempts counted from zero, and drives
     * it; recorded with {@code who}, the clock's time and {@code why}.
     *
     * @throws IllegalStateException when the saga is not stuck
     */
    SagaRecord retry(String id, String who, String why);

    /**
     * An operator ends the stuck saga {@code id} as {@code outcome} ({@link SagaState#COMPLETED} or
     * {@link SagaState#COMPENSATED}), having finished or undone its effects by hand; recorded with {@code who}, the
     * clock's time and {@code why}.
     *
     * @throws IllegalStateException when the saga is not stuck
     */
    SagaRecord resolve(String id, SagaState outcome, String who, String why);

    /** Collects the settings of a {@link SagaCoordinator}. */
    final class Builder {
        private DataSource dataSource;
        private final Map<String, Saga> sagas = new LinkedHashMap<>();
        private String owner = "coordinator-" + UUID.randomUUID();
        private Clock clock = Clock.systemUTC();
        private Duration lease = Duration.ofSeconds(30);
        private SagaRetry retry = SagaRetry.DEFAULT;
        private MeterRegistry registry = new SimpleMeterRegistry();
        private SagaBoundaries boundaries = SagaBoundaries.NONE;

        private Builder() {}

        /** Where the sagas' status is kept (unitas's migrations must have run there). */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** A saga this coordinator can start and recover; recovery leaves sagas of other names alone. */
        public Builder saga(Saga saga) {
            Objects.requireNonNull(saga, "saga");
            if (sagas.putIfAbsent(saga.name(), saga) != null) {
                throw new IllegalArgumentException("saga: '" + saga.name() + "' registered twice (expected: unique"
                                                   + " saga names)");
            }
            return this;
        }

        /** This coordinator's name in the leases it holds; unique per process (default: a random one). */
        public Builder owner(String owner) {
            this.owner = Objects.requireNonNull(owner, "owner");
            return this;
        }

        /** The clock of leases, backoffs and records. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How long a lease lasts without a write (default 30 s); renewed by every write, so it must exceed every
         * step's timeout.
         */
        public Builder lease(Duration lease) {
            this.lease = Objects.requireNonNull(lease, "lease");
            return this;
        }

        /** Retries of a failing execution or compensation (default {@link SagaRetry#DEFAULT}). */
        public Builder retry(SagaRetry retry) {
            this.retry = Objects.requireNonNull(retry, "retry");
            return this;
        }

        /**
         * Where the meters go: {@code unitas.saga.stuck}, {@code unitas.saga.ended}, {@code unitas.saga.step.errors},
         * {@code unitas.saga.recovery.failures}, {@code unitas.saga.recovery.last.success}.
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Test hook: called at every persisted boundary (after each commit, and after each step's effect). */
        Builder boundaries(SagaBoundaries boundaries) {
            this.boundaries = Objects.requireNonNull(boundaries, "boundaries");
            return this;
        }

        /**
         * The coordinator.
         *
         * @throws IllegalArgumentException naming every setting that is missing or wrong, and every step whose
         *                                  timeout is not shorter than the lease
         */
        public SagaCoordinator build() {
            List<String> problems = new ArrayList<>();
            if (dataSource == null) {
                problems.add("dataSource: missing (expected: the database of the sagas' status)");
            }
            if (sagas.isEmpty()) {
                problems.add("saga: none (expected: at least one)");
            }
            if (lease.isZero() || lease.isNegative()) {
                problems.add("lease: " + lease + " (expected: > 0)");
            }
            for (Saga saga : sagas.values()) {
                var steps = saga.definition().steps();
                for (int i = 0; i < steps.size(); i++) {
                    if (steps.get(i).timeout().compareTo(lease) >= 0) {
                        problems.add(saga.name() + ": steps[" + i + "] (" + steps.get(i).name() + "): timeout "
                                     + steps.get(i).timeout() + " (expected: < the lease " + lease
                                     + ", or another coordinator could take the saga over mid-step)");
                    }
                }
            }
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException(String.join("; ", problems));
            }
            return new JdbcSagaCoordinator(dataSource, Map.copyOf(sagas), owner, clock, lease, retry, registry,
                                           boundaries);
        }
    }
}
