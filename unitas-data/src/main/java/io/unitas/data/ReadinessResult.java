package io.unitas.data;

import java.util.Objects;

/**
 * Where a user's data was found, or why it cannot be served now. A value to branch on, never an exception.
 *
 * @param outcome where the data came from, or why there is none
 * @param value   the data for {@code LOCAL} and {@code HOME}, otherwise {@code null}
 * @param problem the problem for {@code NOT_READY} and {@code NO_UNIT}, otherwise {@code null}
 * @param detail  one line explaining the outcome, naming the regions involved
 * @param <T>     the data type
 */
public record ReadinessResult<T>(Outcome outcome, T value, DataProblem problem, String detail) {

    /** Where the data came from, or why there is none. */
    public enum Outcome {
        /** Read from the serving region's store. */
        LOCAL,
        /** Not (yet) in the serving region: read from the user's home region (回源). */
        HOME,
        /** The home region, readable, says there is no such data: a true "does not exist". */
        NOT_FOUND,
        /** Not here and the home region cannot be read: retry later ({@code data-not-ready}, 503). */
        NOT_READY,
        /** The key belongs to no unit, so it has no home to ask: a malformed request (400 {@code no-unit}). */
        NO_UNIT,
        /**
         * An entity not here and the home region cannot be read: the caller may rebuild it (a session) in the serving
         * region now (the rebuild rate limit admitted it). Only for entities built with rebuilds.
         */
        REBUILD
    }

    /** Requires an outcome and a detail, a value exactly when there is data, and a problem exactly when refused. */
    public ReadinessResult {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(detail, "detail");
        if ((outcome == Outcome.NOT_READY || outcome == Outcome.NO_UNIT) != (problem != null)) {
            throw new IllegalArgumentException("problem: " + problem
                                               + " (expected: one exactly when NOT_READY or NO_UNIT)");
        }
        if ((outcome == Outcome.LOCAL || outcome == Outcome.HOME) != (value != null)) {
            throw new IllegalArgumentException("value: " + value + " (expected: one exactly when LOCAL or HOME)");
        }
    }

    /** Whether there is data to serve. */
    public boolean hasValue() {
        return outcome == Outcome.LOCAL || outcome == Outcome.HOME;
    }
}
