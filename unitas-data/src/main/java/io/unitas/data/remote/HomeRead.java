package io.unitas.data.remote;

import java.util.Objects;

import io.unitas.core.ProblemDetail;
import io.unitas.core.Region;

/**
 * What a read from the home region gave: the entity, a true "not found" (the home answered so), or why the home
 * could not be read — a retryable {@code data-not-ready}. A value to branch on; network failures never escape as
 * exceptions.
 *
 * @param outcome    what happened
 * @param home       the region read
 * @param entity     the entity for {@link Outcome#FOUND}, otherwise {@code null}
 * @param problem    for every outcome that is {@link Outcome#notReady() not ready}: the 503 {@code data-not-ready}
 *                   problem to answer the user with, naming the home and why; otherwise {@code null}
 * @param homeStatus the HTTP status the home answered with, 0 when no answer arrived
 * @param detail     one line explaining the outcome, naming the home, unit, type and key
 */
public record HomeRead(Outcome outcome, Region home, StoredEntity entity, ProblemDetail problem, int homeStatus,
                       String detail) {

    /** What happened to a home read. */
    public enum Outcome {
        /** The home has the entity. */
        FOUND,
        /**
         * The home answered that it has no such entity: a true "does not exist" (for a
         * {@link HomeReadClient#readCopy copy read}: only that the region asked holds no copy).
         */
        NOT_FOUND,
        /** No connection to the home (refused, reset, closed mid-answer) or no endpoint known for it. */
        UNREACHABLE,
        /** No answer within the deadline. */
        TIMED_OUT,
        /** The home answered with a failure of its own (5xx) or an answer that could not be read. */
        HOME_FAILED,
        /** The region asked does not own the unit now (421 {@code not-home-region}): the caller's view is behind. */
        NOT_HOME,
        /** The home refused the request itself: the token (401, 403) or the request (another 4xx). */
        REJECTED;

        /** Whether the home could not vouch for the entity: answer a retryable {@code data-not-ready}. */
        public boolean notReady() {
            return this != FOUND && this != NOT_FOUND;
        }

        /** The outcome as a metric tag value: {@code found}, {@code timed_out}, … */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Requires an outcome, a home and a detail, an entity exactly when found and a problem exactly when not ready. */
    public HomeRead {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(detail, "detail");
        if ((outcome == Outcome.FOUND) != (entity != null)) {
            throw new IllegalArgumentException("entity: " + entity + " (expected: one exactly when FOUND)");
        }
        if (outcome.notReady() != (problem != null)) {
            throw new IllegalArgumentException("problem: " + problem + " (expected: one exactly when not ready)");
        }
    }

    /** Whether the home has the entity ({@link #entity()} holds it). */
    public boolean found() {
        return outcome == Outcome.FOUND;
    }

    /** Whether the home could not vouch for the entity: answer {@link #problem()}, a retryable 503. */
    public boolean notReady() {
        return outcome.notReady();
    }

    @Override
    public String toString() {
        return outcome + ": " + detail;
    }
}
