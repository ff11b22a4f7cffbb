package io.unitas.spring;

import io.unitas.core.ProblemDetail;

/**
 * A read the service cannot answer now: its data is not here and its home could not vouch for it
 * ({@code data-not-ready}, 503 with {@code Retry-After}), or it has no unit ({@code no-unit}, 400). Thrown from a
 * controller (MVC or WebFlux), the starter answers it with the problem as {@code application/problem+json}.
 */
public final class DataNotReadyException extends RuntimeException {

    private final transient ProblemDetail problem;

    /** The problem to answer with. */
    public DataNotReadyException(ProblemDetail problem) {
        super(problem.type() + ": " + problem.detail(), null, false, false);
        this.problem = problem;
    }

    /** The problem to answer with. */
    public ProblemDetail problem() {
        return problem;
    }
}
