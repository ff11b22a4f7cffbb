package io.unitas.control;

import java.util.List;
import java.util.Objects;

import io.unitas.core.Problem;
import io.unitas.core.switchover.SwitchoverPlan;

/**
 * Why the control plane did not do what it was asked: a {@link Kind}, a one-line detail, and every problem found,
 * by path (with the document reader's {@code name:line:} lines when a document was refused, and the refused plan when
 * a switchover was). A value, returned, never thrown; the API decides how it is written on the wire.
 *
 * @param kind     what kind of refusal
 * @param detail   what was wrong, in one line (the audit log's detail)
 * @param problems every problem, by path; may be empty
 * @param lines    the reader's {@code name:line: path: message} lines of a refused document; may be empty
 * @param plan     the refused switchover plan, or null
 */
record Refusal(Kind kind, String detail, List<Problem> problems, List<String> lines, SwitchoverPlan plan) {

    /** The kinds of refusal, each with the word the audit log records it by. */
    enum Kind {
        /** The request is malformed (not the document: its framing, a parameter, a header). */
        BAD_REQUEST("bad-request"),
        /** No valid bearer token. */
        UNAUTHENTICATED("unauthenticated"),
        /** The token's role or region does not allow this. */
        FORBIDDEN("forbidden"),
        /** No such region, unit, switchover or route. */
        NOT_FOUND("not-found"),
        /** The request conflicts with the current state (a running switchover, an older report). */
        CONFLICT("conflict"),
        /** The switchover plan was refused; {@link #plan()} says why. */
        SWITCHOVER_REFUSED("switchover-refused"),
        /** The revision the change was based on is no longer the current one. */
        STALE_REVISION("stale-revision"),
        /** The document or command is invalid; {@link #problems()} lists every problem. */
        INVALID_DOCUMENT("invalid-document"),
        /** A replacement must name the revision it replaces. */
        REVISION_REQUIRED("revision-required"),
        /** The body is larger than the route accepts. */
        TOO_LARGE("too-large"),
        /** The client presented too many wrong tokens lately ({@link GuessThrottle}). */
        TOO_MANY_GUESSES("too-many-guesses"),
        /** The token holds as many watches as it may. */
        TOO_MANY_WATCHES("too-many-watches"),
        /** The control plane serves as many watches as it may. */
        WATCHERS_FULL("watchers-full"),
        /** The store cannot be reached. */
        UNAVAILABLE("unavailable");

        private final String word;

        Kind(String word) {
            this.word = word;
        }

        /** The word the audit log records this refusal by, and the last segment of its problem type. */
        String word() {
            return word;
        }
    }

    Refusal {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(detail, "detail");
        problems = List.copyOf(problems);
        lines = List.copyOf(lines);
    }

    /** A refusal with its detail only. */
    static Refusal of(Kind kind, String detail) {
        return new Refusal(kind, detail, List.of(), List.of(), null);
    }

    /** An invalid document or command: {@code what: N problem(s)}, with every problem by path. */
    static Refusal invalid(String what, List<Problem> problems) {
        return invalid(what, problems, List.of());
    }

    /** An invalid document, with its problems by path and as the reader's lines. */
    static Refusal invalid(String what, List<Problem> problems, List<String> lines) {
        return new Refusal(Kind.INVALID_DOCUMENT, what + ": " + problems.size() + " problem"
                           + (problems.size() == 1 ? "" : "s"), problems, lines, null);
    }
}
