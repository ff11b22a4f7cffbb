package io.unitas.spring;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Runs a reconciliation pass every {@code every} on a thread of its own. A pass that throws — anything, an
 * {@link Error} included — is logged once, counted in {@code unitas.reconciliation.pass.errors} and kept as
 * {@link #lastError()} until a pass succeeds; the schedule goes on (an executor stops a periodic task for good once
 * it throws).
 */
final class ReconciliationSchedule implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReconciliationSchedule.class);

    private final Runnable pass;
    private final Duration every;
    private final Counter errors;
    private final ScheduledExecutorService executor;
    private volatile String lastError;

    ReconciliationSchedule(Runnable pass, Duration every, MeterRegistry meters) {
        this.pass = Objects.requireNonNull(pass, "pass");
        this.every = Objects.requireNonNull(every, "every");
        this.errors = Counter.builder("unitas.reconciliation.pass.errors")
                             .description("reconciliation passes that stopped on an error (retried next window)")
                             .register(meters);
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "unitas-reconciliation");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts the passes: the first after one period, then one period after each ends. */
    void start() {
        long millis = Math.max(1, every.toMillis());
        executor.scheduleWithFixedDelay(this::runOnce, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** One pass, now, on the calling thread; never throws. */
    void runOnce() {
        try {
            pass.run();
            lastError = null;
        } catch (Throwable e) { // anything escaping would end the schedule for good
            lastError = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            errors.increment();
            log.warn("reconciliation pass failed, retried in {}: {}", every, lastError, e);
        }
    }

    /** Why the last pass stopped, or empty when it did not. */
    Optional<String> lastError() {
        return Optional.ofNullable(lastError);
    }

    /** Whether passes are still scheduled. */
    boolean running() {
        return !executor.isShutdown();
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
