package io.unitas.data;

import io.unitas.data.store.StoredResponse;
import java.util.Objects;

/**
 * The outcome of an idempotent request: its response, first-hand or replayed, or the problem that stopped it.
 *
 * @param outcome  what happened
 * @param response the response for {@code EXECUTED} and {@code REPLAYED}, otherwise {@code null}
 * @param problem  the problem for {@code REJECTED}, otherwise {@code null}
 */
public record IdempotencyResult(Outcome outcome, StoredResponse response, DataProblem problem) {

    /** What happened to the request. */
    public enum Outcome {
        /** The action ran now; its response is recorded with the user's home unit. */
        EXECUTED,
        /** The key was completed before: the stored response, and the action did not run. */
        REPLAYED,
        /** The action did not run: see {@link #problem()} (422 reused, 409 in flight, 503 not ready). */
        REJECTED
    }

    /** Requires a response exactly when executed or replayed, and a problem exactly when rejected. */
    public IdempotencyResult {
        Objects.requireNonNull(outcome, "outcome");
        if ((outcome == Outcome.REJECTED) != (problem != null) || (outcome == Outcome.REJECTED) == (response != null)) {
            throw new IllegalArgumentException("outcome " + outcome + " with response " + response + " and problem "
                                               + problem + " (expected: a response or a problem, not both)");
        }
    }

    static IdempotencyResult rejected(DataProblem problem) {
        return new IdempotencyResult(Outcome.REJECTED, null, problem);
    }
}
