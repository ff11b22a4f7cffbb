package io.unitas.core;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One kind of error answer, with the HTTP status that carries it: the catalog every refusal of the routing decision,
 * the gateway and the service SDK draws from (as Armeria's {@code HttpStatus}), so that a type's name and status are
 * written in one place and a reader matches an answer against a constant instead of a string.
 *
 * @param name   the type's name, lowercase words joined by {@code -}; on the wire {@code urn:unitas:problem:<name>}
 * @param status the HTTP status that carries it
 */
public record ProblemType(String name, int status) {

    private static final Map<String, ProblemType> KNOWN = new LinkedHashMap<>();

    /** A request came before the first routing state arrived. */
    public static final ProblemType NO_ROUTING_STATE = known("no-routing-state", 503);
    /** A request passed more unitas gateways than the hop limit allows. */
    public static final ProblemType LOOP_DETECTED = known("loop-detected", 508);
    /** No source of the rules yielded a routing key, and the rules reject such requests. */
    public static final ProblemType MISSING_ROUTING_KEY = known("missing-routing-key", 400);
    /** The routing key was given twice, or two sources disagree. */
    public static final ProblemType AMBIGUOUS_ROUTING_KEY = known("ambiguous-routing-key", 400);
    /** The routing key names no unit and no center. */
    public static final ProblemType UNROUTABLE_KEY = known("unroutable-key", 400);
    /** A trusted peer's stamp names no region of the topology. */
    public static final ProblemType UNKNOWN_REGION = known("unknown-region", 400);
    /** A write whose serving region is read-only, refused by the unit's read-only policy. */
    public static final ProblemType READ_ONLY = known("read-only", 503);
    /** Neither the home region nor any region it may fail over to is admitted. */
    public static final ProblemType NO_HEALTHY_REGION = known("no-healthy-region", 503);
    /** A write of a unit whose writes are fenced (or throttled past their rate) while its data moves. */
    public static final ProblemType WRITE_FENCED = known("write-fenced", 503);
    /** A write reached a region that does not take its unit's writes now. */
    public static final ProblemType NOT_HOME_REGION = known("not-home-region", 421);
    /**
     * A peer answered an error status without a problem body: its own status is in the detail; as a problem it is the
     * peer's failure (never sent on as another's problem type, such as {@code about:blank}).
     */
    public static final ProblemType UNEXPECTED_ANSWER = known("unexpected-answer", 502);
    /** The user's data is not present or fresh enough here yet; retrying helps. */
    public static final ProblemType DATA_NOT_READY = known("data-not-ready", 503);
    /** The key names no unit (malformed, or outside every range): the request is wrong, not early. */
    public static final ProblemType NO_UNIT = known("no-unit", 400);
    /** The Idempotency-Key was already used with another payload or by another owner (IETF Idempotency-Key draft). */
    public static final ProblemType IDEMPOTENCY_KEY_REUSED = known("idempotency-key-reused", 422);
    /** A request with this Idempotency-Key is still being processed (IETF Idempotency-Key draft). */
    public static final ProblemType IDEMPOTENCY_KEY_IN_FLIGHT = known("idempotency-key-in-flight", 409);

    /** Checks the name's shape and the status's range. */
    public ProblemType {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || !name.matches("[a-z0-9]+(-[a-z0-9]+)*")) {
            throw new IllegalArgumentException("problem type: '" + name + "' (expected: lowercase words joined by -)");
        }
        if (status < 100 || status > 599) {
            throw new IllegalArgumentException("status: " + status + " (expected: 100 to 599)");
        }
    }

    private static ProblemType known(String name, int status) {
        ProblemType t = new ProblemType(name, status);
        KNOWN.put(name, t);
        return t;
    }

    /** The catalog's type named {@code name} (a bare name or a {@code urn:unitas:problem:} URI), or {@code null}. */
    public static ProblemType of(String name) {
        return name == null ? null : KNOWN.get(ProblemDetail.typeName(name));
    }

    /** Whether {@code problem} is of this type. */
    public boolean is(ProblemDetail problem) {
        return problem != null && name.equals(problem.type());
    }

    /** An occurrence of this type: {@code detail} names the unit, region or key involved; not worth retrying. */
    public ProblemDetail problem(String detail) {
        return ProblemDetail.of(status, name, detail);
    }

    /** An occurrence of this type telling the client to retry after {@code retryAfter}. */
    public ProblemDetail problem(String detail, Duration retryAfter) {
        return ProblemDetail.of(status, name, detail, retryAfter);
    }

    /** {@code name (status)}. */
    @Override
    public String toString() {
        return name + " (" + status + ")";
    }
}
