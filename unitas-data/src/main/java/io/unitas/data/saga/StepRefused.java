package io.unitas.data.saga;

/**
 * Thrown by a {@link StepAction} that applied nothing and will not on a retry: the saga compensates the steps before
 * it (a step after the pivot must not refuse; the saga is then stuck).
 */
public final class StepRefused extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A refusal with its reason, recorded as the step's error. */
    public StepRefused(String reason) {
        super(reason, null, false, false);
    }
}
