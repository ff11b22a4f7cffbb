package io.unitas.core.saga;

/** What a coordinator does next for a saga: the output of {@link SagaMachine#action}. */
public sealed interface SagaAction {

    /** Persist the start ({@link SagaEvent#START}). */
    record Start() implements SagaAction {}

    /** Run the execution of step {@code step}; {@code attempt} counts from 0 (a backoff applies after 0). */
    record Execute(int step, int attempt) implements SagaAction {}

    /** Run the compensation of step {@code step}; {@code attempt} counts from 0. */
    record Compensate(int step, int attempt) implements SagaAction {}

    /** Nothing until an operator retries or resolves the saga. */
    record AwaitOperator(int step, boolean compensating) implements SagaAction {}

    /** Nothing: the saga ended in {@code state}. */
    record Finished(SagaState state) implements SagaAction {}
}
