package io.unitas.core.saga;

/**
 * What a coordinator persists about a saga, and all the {@link SagaMachine} needs to say what comes next.
 *
 * @param state        where the saga stands
 * @param step         the step being executed or compensated (for {@link SagaState#FAILED}, the one stuck;
 *                     for a terminal state, the last one run)
 * @param attempts     the failed attempts of the current execution or compensation so far
 * @param compensating whether the saga is going back: true in {@link SagaState#COMPENSATING} and
 *                     {@link SagaState#COMPENSATED}, and in {@link SagaState#FAILED} when a compensation got stuck
 */
public record SagaStatus(SagaState state, int step, int attempts, boolean compensating) {

    /** Checks the parts. */
    public SagaStatus {
        if (state == null) {
            throw new IllegalArgumentException("state: null (expected: a saga state)");
        }
        if (step < 0) {
            throw new IllegalArgumentException("step: " + step + " (expected: >= 0)");
        }
        if (attempts < 0) {
            throw new IllegalArgumentException("attempts: " + attempts + " (expected: >= 0)");
        }
    }

    /** A saga recorded and not started. */
    public static SagaStatus pending() {
        return new SagaStatus(SagaState.PENDING, 0, 0, false);
    }
}
