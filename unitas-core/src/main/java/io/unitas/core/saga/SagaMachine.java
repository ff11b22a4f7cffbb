package io.unitas.core.saga;

/**
 * The saga state machine: every transition a pure function of (definition, status, event), and what to do next a
 * pure function of (definition, status), so a coordinator that crashed anywhere recovers by loading the persisted
 * status and asking {@link #action}.
 *
 * <ul>
 *   <li>A step that succeeds moves the saga to the next step, or to {@link SagaState#COMPLETED} after the last.
 *   <li>A step that errs (fails or times out, maybe applied) is retried up to {@link SagaRetry#maxAttempts}; past
 *       that, a step before the pivot is compensated itself (its effect is unknown; compensations are idempotent and
 *       undo nothing where nothing was applied), then every step before it, last first.
 *   <li>A step that refuses applied nothing: the steps before it are compensated, last first.
 *   <li>The pivot or a step after it that keeps failing, and a compensation that keeps failing, leave the saga
 *       {@link SagaState#FAILED}: nothing can go on or go back without an operator ({@link SagaEvent#RETRY},
 *       {@link SagaEvent.Resolve}).
 * </ul>
 */
public final class SagaMachine {

    private SagaMachine() {}

    /** What the coordinator does next for a saga in {@code status}. */
    public static SagaAction action(SagaDefinition definition, SagaStatus status) {
        check(definition, status);
        return switch (status.state()) {
            case PENDING -> new SagaAction.Start();
            case EXECUTING -> new SagaAction.Execute(status.step(), status.attempts());
            case COMPENSATING -> new SagaAction.Compensate(status.step(), status.attempts());
            case FAILED -> new SagaAction.AwaitOperator(status.step(), status.compensating());
            case COMPLETED, COMPENSATED -> new SagaAction.Finished(status.state());
        };
    }

    /**
     * The status after {@code event}.
     *
     * @throws IllegalStateException when {@code event} cannot happen in {@code status} (a step's result for a saga
     *                               that is not running it, a resolve of a saga that is not stuck)
     */
    public static SagaStatus on(SagaDefinition definition, SagaStatus status, SagaEvent event, SagaRetry retry) {
        check(definition, status);
        int i = status.step();
        int last = definition.steps().size() - 1;
        switch (status.state()) {
            case PENDING:
                if (event instanceof SagaEvent.Start) {
                    return new SagaStatus(SagaState.EXECUTING, 0, 0, false);
                }
                throw refused(status, event, "START");
            case EXECUTING:
                if (event instanceof SagaEvent.Succeeded) {
                    return i == last
                            ? new SagaStatus(SagaState.COMPLETED, i, 0, false)
                            : new SagaStatus(SagaState.EXECUTING, i + 1, 0, false);
                }
                if (event instanceof SagaEvent.Failed failed) {
                    if (failed.refused()) {
                        // Nothing applied: undo the steps before it; past the pivot there is no going back.
                        return definition.compensates(i) || i == definition.pivot()
                                ? back(i - 1)
                                : new SagaStatus(SagaState.FAILED, i, status.attempts() + 1, false);
                    }
                    if (status.attempts() + 1 < retry.maxAttempts()) {
                        return new SagaStatus(SagaState.EXECUTING, i, status.attempts() + 1, false);
                    }
                    // It may have applied: its own compensation runs first.
                    return definition.compensates(i)
                            ? back(i)
                            : new SagaStatus(SagaState.FAILED, i, status.attempts() + 1, false);
                }
                throw refused(status, event, "SUCCEEDED, ERROR or REFUSED");
            case COMPENSATING:
                if (event instanceof SagaEvent.Succeeded) {
                    return back(i - 1);
                }
                if (event instanceof SagaEvent.Failed) {
                    return status.attempts() + 1 < retry.maxAttempts()
                            ? new SagaStatus(SagaState.COMPENSATING, i, status.attempts() + 1, true)
                            : new SagaStatus(SagaState.FAILED, i, status.attempts() + 1, true);
                }
                throw refused(status, event, "SUCCEEDED, ERROR or REFUSED");
            case FAILED:
                if (event instanceof SagaEvent.Retry) {
                    return new SagaStatus(status.compensating() ? SagaState.COMPENSATING : SagaState.EXECUTING, i,
                                          0, status.compensating());
                }
                if (event instanceof SagaEvent.Resolve resolve) {
                    return new SagaStatus(resolve.outcome(), i, 0, resolve.outcome() == SagaState.COMPENSATED);
                }
                throw refused(status, event, "RETRY or a resolve");
            default:
                throw refused(status, event, "nothing: the saga has ended");
        }
    }

    /** Compensating from step {@code i} down, or compensated when no step is left to undo. */
    private static SagaStatus back(int i) {
        return i < 0
                ? new SagaStatus(SagaState.COMPENSATED, 0, 0, true)
                : new SagaStatus(SagaState.COMPENSATING, i, 0, true);
    }

    private static void check(SagaDefinition definition, SagaStatus status) {
        if (status.step() >= definition.steps().size()) {
            throw new IllegalArgumentException(definition.name() + ": step " + status.step() + " (expected: < "
                                               + definition.steps().size() + " steps)");
        }
    }

    private static IllegalStateException refused(SagaStatus status, SagaEvent event, String expected) {
        return new IllegalStateException("saga " + status.state().jsonName() + " at step " + status.step()
                                         + ": event " + event + " (expected: " + expected + ")");
    }
}
