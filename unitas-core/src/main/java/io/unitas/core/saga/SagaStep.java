package io.unitas.core.saga;

import java.time.Duration;

/**
 * One step of a {@link SagaDefinition}, as the state machine sees it: its name (unique in the saga, part of every
 * idempotency key the step uses), how long one attempt may take, whether it has a compensation, and whether it is
 * the pivot (the go/no-go step after which the saga only goes forward).
 *
 * <p>Validation happens in {@link SagaDefinition#of}, which reports every problem of a definition at once.
 */
public record SagaStep(String name, Duration timeout, boolean compensable, boolean pivot) {

    /** A step with a compensation. */
    public static SagaStep compensable(String name, Duration timeout) {
        return new SagaStep(name, timeout, true, false);
    }

    /** The pivot: no compensation; once it has run, the steps after it are retried until they succeed. */
    public static SagaStep pivot(String name, Duration timeout) {
        return new SagaStep(name, timeout, false, true);
    }

    /** A step after the pivot: no compensation, retried until it succeeds. */
    public static SagaStep retriable(String name, Duration timeout) {
        return new SagaStep(name, timeout, false, false);
    }
}
