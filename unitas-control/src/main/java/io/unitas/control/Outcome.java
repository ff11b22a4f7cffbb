package io.unitas.control;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;

/**
 * A response of the API as a value: a JSON body with its status (and the revision it carries, 0 if none), or a
 * {@link Refusal} written as an RFC 9457 problem ({@link ProblemDetail}, by the one codec {@link ProblemJson}) with
 * every problem found, by path. Only {@link ControlApi} makes these; the service speaks in {@link ChangeResult}s
 * and {@link Refusal}s.
 */
record Outcome(int status, JsonNode body, long revision, Refusal.Kind kind) {

    static Outcome ok(JsonNode body, long revision) {
        return new Outcome(200, body, revision, null);
    }

    static Outcome accepted(JsonNode body, long revision) {
        return new Outcome(202, body, revision, null);
    }

    static Outcome problem(Refusal.Kind kind, String detail) {
        return problem(Refusal.of(kind, detail));
    }

    /** The refusal as a problem: type, title, status, detail, and its problems, reader lines and plan if any. */
    static Outcome problem(Refusal refusal) {
        int status = status(refusal.kind());
        ProblemDetail problem = ProblemDetail.of(status, refusal.kind().word(), refusal.detail())
                                             .withTitle(title(refusal.kind())).withProblems(refusal.problems());
        if (!refusal.lines().isEmpty()) {
            problem = problem.with("errors", refusal.lines());
        }
        if (refusal.plan() != null) {
            problem = problem.with("plan", StateJson.plan(refusal.plan()));
        }
        return new Outcome(status, ProblemJson.tree(problem), 0, refusal.kind());
    }

    /** A status the server answers on its own (a route that does not exist, a method it does not allow). */
    static Outcome problem(int status, String reasonPhrase, String detail) {
        ProblemDetail problem = ProblemDetail.of(status, reasonPhrase.toLowerCase(java.util.Locale.ROOT)
                                                                     .replaceAll("[^a-z0-9]+", "-"), detail)
                                             .withTitle(reasonPhrase);
        return new Outcome(status, ProblemJson.tree(problem), 0, null);
    }

    /** The HTTP status of each kind of refusal. */
    static int status(Refusal.Kind kind) {
        return switch (kind) {
            case BAD_REQUEST -> 400;
            case UNAUTHENTICATED -> 401;
            case FORBIDDEN -> 403;
            case NOT_FOUND -> 404;
            case CONFLICT, SWITCHOVER_REFUSED -> 409;
            case STALE_REVISION -> 412;
            case TOO_LARGE -> 413;
            case INVALID_DOCUMENT -> 422;
            case REVISION_REQUIRED -> 428;
            case TOO_MANY_WATCHES, TOO_MANY_GUESSES -> 429;
            case WATCHERS_FULL, UNAVAILABLE -> 503;
        };
    }

    private static String title(Refusal.Kind kind) {
        return switch (kind) {
            case BAD_REQUEST -> "The request is malformed";
            case UNAUTHENTICATED -> "A valid bearer token is required";
            case FORBIDDEN -> "The token's role does not allow this";
            case NOT_FOUND -> "No such resource";
            case CONFLICT -> "The request conflicts with the current state";
            case SWITCHOVER_REFUSED -> "The switchover plan was refused";
            case STALE_REVISION -> "The state changed since the revision in If-Match";
            case TOO_LARGE -> "The body is larger than this route accepts";
            case INVALID_DOCUMENT -> "The document is invalid";
            case REVISION_REQUIRED -> "If-Match with the revision being replaced is required";
            case TOO_MANY_WATCHES -> "The token holds as many watches as it may";
            case TOO_MANY_GUESSES -> "Too many wrong tokens from this client";
            case WATCHERS_FULL -> "The control plane serves as many watches as it may";
            case UNAVAILABLE -> "The control plane cannot reach its store";
        };
    }

    boolean failed() {
        return kind != null;
    }
}
