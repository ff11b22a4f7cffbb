package io.unitas.data.saga;

/**
 * What a step's execution or compensation is given.
 *
 * @param sagaId       the saga's id
 * @param step         the step's name
 * @param compensation whether this is the step's compensation
 * @param attempt      0 for the first attempt; a retry (or a recovery after a crash) may follow an attempt that
 *                     applied, so the work must be idempotent ({@link SagaSteps#once}, {@link #idempotencyKey})
 * @param payload      the saga's payload, as given to {@link SagaCoordinator#start}
 */
public record StepContext(String sagaId, String step, boolean compensation, int attempt, String payload) {

    /**
     * The key under which this execution or compensation applies once, the same on every attempt: an
     * Idempotency-Key for a service the step calls ({@code io.unitas.data.Idempotency#execute}).
     */
    public String idempotencyKey() {
        return "saga:" + sagaId + ":" + step + (compensation ? ":compensate" : ":execute");
    }
}
