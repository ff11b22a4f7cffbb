package io.unitas.control;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.core.Problem;

/**
 * What an API operation came to: a JSON body with its status (and the revision it produced, 0 if none), or an
 * RFC 9457 problem of one {@link Kind} with every problem found, by path. Returned, never thrown.
 */
record Outcome(int status, JsonNode body, long revision, Kind kind) {

    /** The kinds of refusal, each with its status and its problem {@code type} URI. */
    enum Kind {
        BAD_REQUEST(400, "bad-request", "The request is malformed"),
        UNAUTHENTICATED(401, "unauthenticated", "A valid bearer token is required"),
        FORBIDDEN(403, "forbidden", "The token's role does not allow this"),
        NOT_FOUND(404, "not-found", "No such resource"),
        CONFLICT(409, "conflict", "The request conflicts with the current state"),
        SWITCHOVER_REFUSED(409, "switchover-refused", "The switchover plan was refused"),
        STALE_REVISION(412, "stale-revision", "The state changed since the revision in If-Match"),
        INVALID_DOCUMENT(422, "invalid-document", "The document is invalid"),
        REVISION_REQUIRED(428, "revision-required", "If-Match with the revision being replaced is required"),
        TOO_MANY_WATCHES(429, "too-many-watches", "The token holds as many watches as it may"),
        WATCHERS_FULL(503, "watchers-full", "The control plane serves as many watches as it may"),
        UNAVAILABLE(503, "unavailable", "The control plane cannot reach its store");

        final int status;
        final String slug;
        final String title;

        Kind(int status, String slug, String title) {
            this.status = status;
            this.slug = slug;
            this.title = title;
        }

        /** The problem's {@code type}: a URN naming this kind. */
        String type() {
            return "urn:unitas:problem:" + slug;
        }

        /** The audit outcome word for this refusal. */
        String auditWord() {
            return slug;
        }
    }

    static Outcome ok(JsonNode body, long revision) {
        return new Outcome(200, body, revision, null);
    }

    static Outcome accepted(JsonNode body, long revision) {
        return new Outcome(202, body, revision, null);
    }

    static Outcome problem(Kind kind, String detail) {
        return problem(kind, detail, List.of(), null);
    }

    /** A problem with every sub-problem by path and, when given, extra members (a refused plan). */
    static Outcome problem(Kind kind, String detail, List<Problem> problems, ObjectNode extra) {
        ObjectNode body = StateJson.MAPPER.createObjectNode();
        body.put("type", kind.type());
        body.put("title", kind.title);
        body.put("status", kind.status);
        body.put("detail", detail);
        if (!problems.isEmpty()) {
            body.set("problems", StateJson.problems(problems));
        }
        if (extra != null) {
            body.setAll(extra);
        }
        return new Outcome(kind.status, body, 0, kind);
    }

    boolean failed() {
        return kind != null;
    }

    /** The problem detail, for the audit log. */
    String detail() {
        return body.path("detail").asText();
    }
}
