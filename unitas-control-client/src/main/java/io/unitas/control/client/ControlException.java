package io.unitas.control.client;

import io.unitas.core.ProblemDetail;

/**
 * The control plane refused a request: its RFC 9457 problem (type, status, detail, and for an invalid document or
 * request every problem by path). A server that cannot be reached is an {@link java.io.UncheckedIOException}
 * instead: nothing answered.
 */
public final class ControlException extends RuntimeException {

    private final ProblemDetail problem;

    /** A refusal with {@code problem} to {@code request} ({@code DELETE /api/v1/fences/u-sh}). */
    public ControlException(String request, ProblemDetail problem) {
        super(request + ": " + problem.status() + " " + (problem.detail().isEmpty() ? problem.title()
                                                                                     : problem.detail()));
        this.problem = problem;
    }

    /** The problem the server answered. */
    public ProblemDetail problem() {
        return problem;
    }

    /** Its HTTP status. */
    public int status() {
        return problem.status();
    }
}
