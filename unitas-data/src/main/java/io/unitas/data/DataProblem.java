package io.unitas.data;

import java.time.Duration;
import java.util.Objects;

import io.unitas.core.ProblemDetail;
import io.unitas.core.ProblemType;

/**
 * Why a data-layer call could not answer with data, in the shape an HTTP layer turns into
 * {@code application/problem+json}: a type with its status code, a one-line detail and, when retrying helps,
 * how long to wait.
 *
 * @param type       what went wrong
 * @param detail     one line naming the user, key or region involved
 * @param retryAfter how long to wait before retrying; {@link Duration#ZERO} when retrying the same request
 *                   cannot help
 */
public record DataProblem(Type type, String detail, Duration retryAfter) {

    /** The kinds of problem, each a type of the one catalog ({@link ProblemType}) with a title. */
    public enum Type {
        /** The user's data is not readable here or at home yet: retry later; never "does not exist". */
        DATA_NOT_READY(ProblemType.DATA_NOT_READY, "Data not ready"),
        /** The Idempotency-Key was already used with a different payload (IETF Idempotency-Key draft). */
        IDEMPOTENCY_KEY_REUSED(ProblemType.IDEMPOTENCY_KEY_REUSED, "Idempotency key reused"),
        /** A request with this Idempotency-Key is still being processed (IETF Idempotency-Key draft). */
        IDEMPOTENCY_KEY_IN_FLIGHT(ProblemType.IDEMPOTENCY_KEY_IN_FLIGHT, "Idempotency key in flight"),
        /** The key names no unit (malformed, or outside every range): the request is wrong, not early. */
        NO_UNIT(ProblemType.NO_UNIT, "No unit for key");

        private final ProblemType problemType;
        private final String title;

        Type(ProblemType problemType, String title) {
            this.problemType = problemType;
            this.title = title;
        }

        /** The problem type's name, the last segment of its problem+json {@code type} URI. */
        public String id() {
            return problemType.name();
        }

        /** The HTTP status code that carries it. */
        public int status() {
            return problemType.status();
        }

        /** A short human-readable summary, the problem+json {@code title}. */
        public String title() {
            return title;
        }
    }

    /** Requires every part and a non-negative wait. */
    public DataProblem {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(detail, "detail");
        if (retryAfter.isNegative()) {
            throw new IllegalArgumentException("retry_after: " + retryAfter + " (expected: >= 0)");
        }
    }

    /** {@code retryAfter} when it is a wait a builder can suggest (above 0), else an error saying so. */
    static Duration requireSuggestedWait(Duration retryAfter) {
        if (retryAfter.isNegative() || retryAfter.isZero()) {
            throw new IllegalArgumentException("retry_after: " + retryAfter + " (expected: > 0)");
        }
        return retryAfter;
    }

    /** Whether the same request may succeed later. */
    public boolean retryable() {
        return type != Type.IDEMPOTENCY_KEY_REUSED && type != Type.NO_UNIT;
    }

    /** This problem as the RFC 9457 detail every unitas HTTP layer sends. */
    public ProblemDetail toProblemDetail() {
        return ProblemDetail.of(type.status(), type.id(), detail).withTitle(type.title()).withRetryAfter(retryAfter);
    }

    @Override
    public String toString() {
        return type.id() + " (" + type.status() + "): " + detail;
    }
}
