package io.unitas.core.saga;

import java.util.Locale;

/**
 * Where a saga stands (seed 003, 4.3): Pending → Executing → Completed, or Executing → Compensating →
 * Compensated, or → Failed when a step or compensation keeps failing and an operator must act.
 */
public enum SagaState {
    /** Recorded; no step has started. */
    PENDING,
    /** Running its steps forward, one at a time. */
    EXECUTING,
    /** Every step ran. Terminal. */
    COMPLETED,
    /** A step before the pivot failed; running the compensations of the steps before it, last first. */
    COMPENSATING,
    /** Every step that ran was compensated. Terminal. */
    COMPENSATED,
    /** Stuck: retries ran out where the saga can neither go on nor go back; waits for an operator. */
    FAILED;

    /** Whether nothing more will happen to a saga in this state. */
    public boolean terminal() {
        return this == COMPLETED || this == COMPENSATED;
    }

    /** The lowercase name used in tables and JSON ({@code compensating}). */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The state named {@code name} as {@link #jsonName()} writes it. */
    public static SagaState fromJson(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
