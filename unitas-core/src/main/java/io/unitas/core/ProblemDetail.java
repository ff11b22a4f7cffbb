package io.unitas.core;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An RFC 9457 problem detail: the one shape of every error answer unitas sends over HTTP, from the gateway, the
 * control plane and the services it protects. The {@code type} is a short name ({@code write-fenced},
 * {@code data-not-ready}) that goes on the wire as {@code urn:unitas:problem:<type>}; the JSON codec lives with the
 * other formats ({@code io.unitas.config.ProblemJson}).
 *
 * @param type       the problem type's name: lowercase words joined by {@code -}
 * @param title      a short summary of the type, the same for every occurrence
 * @param status     the HTTP status that carries it, 100 to 599
 * @param detail     this occurrence, naming the unit, region, key or path involved
 * @param retryAfter sent as {@code Retry-After} when above 0; {@link Duration#ZERO} when retrying cannot help
 * @param problems   every problem found in a document, by path (a 422's list); empty for most
 * @param extensions further members, in order: values the codec writes as JSON (text, numbers, booleans, lists,
 *                   maps, or JSON trees)
 */
public record ProblemDetail(String type, String title, int status, String detail, Duration retryAfter,
                            List<Problem> problems, Map<String, Object> extensions) {

    /** A problem type URI is this plus the type's name. */
    public static final String TYPE_BASE = "urn:unitas:problem:";

    /** Requires every part; copies the lists. */
    public ProblemDetail {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(detail, "detail");
        if (status < 100 || status > 599) {
            throw new IllegalArgumentException("status: " + status + " (expected: 100 to 599)");
        }
        if (retryAfter.isNegative()) {
            throw new IllegalArgumentException("retry_after: " + retryAfter + " (expected: >= 0)");
        }
        problems = List.copyOf(problems);
        extensions = extensions.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(extensions));
    }

    /** A problem of {@code type} whose title is the type's name in words ({@code write fenced}). */
    public static ProblemDetail of(int status, String type, String detail) {
        return new ProblemDetail(type, type.replace('-', ' '), status, detail, Duration.ZERO, List.of(), Map.of());
    }

    /** A problem of {@code type} telling the client to retry after {@code retryAfter} ({@link Duration#ZERO}: not). */
    public static ProblemDetail of(int status, String type, String detail, Duration retryAfter) {
        return new ProblemDetail(type, type.replace('-', ' '), status, detail, retryAfter, List.of(), Map.of());
    }

    /** This problem with another title. */
    public ProblemDetail withTitle(String title) {
        return new ProblemDetail(type, title, status, detail, retryAfter, problems, extensions);
    }

    /** This problem, telling the client to retry after {@code wait}. */
    public ProblemDetail withRetryAfter(Duration wait) {
        return new ProblemDetail(type, title, status, detail, wait, problems, extensions);
    }

    /** This problem with every problem of a document, by path. */
    public ProblemDetail withProblems(List<Problem> problems) {
        return new ProblemDetail(type, title, status, detail, retryAfter, problems, extensions);
    }

    /** This problem with one more member; a later value for the same name replaces the earlier. */
    public ProblemDetail with(String member, Object value) {
        Map<String, Object> more = new LinkedHashMap<>(extensions);
        more.put(member, value);
        return new ProblemDetail(type, title, status, detail, retryAfter, problems, more);
    }

    /** The type as it goes on the wire: {@code urn:unitas:problem:<type>}. */
    public String typeUri() {
        return TYPE_BASE + type;
    }

    /** The type's name in {@code uri}: what follows {@link #TYPE_BASE}, or the whole URI when it is another's. */
    public static String typeName(String uri) {
        return uri.startsWith(TYPE_BASE) ? uri.substring(TYPE_BASE.length()) : uri;
    }

    /** Whole seconds for {@code Retry-After}, rounded up so that a wait under a second is not sent as 0. */
    public long retryAfterSeconds() {
        long s = retryAfter.getSeconds();
        return retryAfter.getNano() > 0 ? s + 1 : s;
    }

    /** {@code type (status): detail}. */
    @Override
    public String toString() {
        return type + " (" + status + "): " + detail;
    }
}
