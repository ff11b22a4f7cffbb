package io.unitas.core.saga;

/** What happened to a saga: the input of {@link SagaMachine#on}. */
public sealed interface SagaEvent {

    /** The coordinator starts a pending saga. */
    SagaEvent START = new Start();
    /** The current execution or compensation succeeded (or had already been applied: steps are idempotent). */
    SagaEvent SUCCEEDED = new Succeeded();
    /** The current attempt failed or timed out; whether it applied is unknown, so it may be retried. */
    SagaEvent ERROR = new Failed(false);
    /** The current step refused, applying nothing (insufficient credit, a closed account): never retried. */
    SagaEvent REFUSED = new Failed(true);
    /** An operator retries a stuck saga from where it stopped, with its attempts counted from zero. */
    SagaEvent RETRY = new Retry();

    /** See {@link #START}. */
    record Start() implements SagaEvent {}

    /** See {@link #SUCCEEDED}. */
    record Succeeded() implements SagaEvent {}

    /** See {@link #ERROR} and {@link #REFUSED}. */
    record Failed(boolean refused) implements SagaEvent {}

    /** See {@link #RETRY}. */
    record Retry() implements SagaEvent {}

    /**
     * An operator ends a stuck saga by hand, having completed or undone its effects outside it.
     *
     * @param outcome {@link SagaState#COMPLETED} or {@link SagaState#COMPENSATED}
     */
    record Resolve(SagaState outcome) implements SagaEvent {

        /** Checks the outcome. */
        public Resolve {
            if (outcome != SagaState.COMPLETED && outcome != SagaState.COMPENSATED) {
                throw new IllegalArgumentException("outcome: " + outcome + " (expected: COMPLETED or COMPENSATED)");
            }
        }
    }
}
