package io.unitas.control.client.internal;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Every operation the client calls, by the {@code operationId} of the server's OpenAPI document: the one table the
 * typed methods build their requests from, and the one the contract test holds against the document.
 */
public enum Operation {
    GET_STATE("getState", "GET", "/api/v1/state"),
    WHOAMI("whoami", "GET", "/api/v1/whoami"),
    GET_REPLICA("getReplica", "GET", "/api/v1/replica"),
    GET_FALLBACK_POOL("getFallbackPool", "GET", "/api/v1/fallback-pool"),
    GET_BUDGETS("getBudgets", "GET", "/api/v1/budgets"),
    REPLACE_TOPOLOGY("replaceTopology", "PUT", "/api/v1/topology"),
    REPLACE_RULES("replaceRules", "PUT", "/api/v1/rules"),
    REPLACE_FAILOVER("replaceFailover", "PUT", "/api/v1/failover"),
    REPORT_HEALTH("reportHealth", "PUT", "/api/v1/health/{region}"),
    RESET_HEALTH("resetHealth", "DELETE", "/api/v1/health/{region}"),
    REPORT_UNREACHABLE("reportUnreachable", "POST", "/api/v1/health/{region}/unreachable"),
    ADD_FENCES("addFences", "POST", "/api/v1/fences"),
    LIFT_FENCE("liftFence", "DELETE", "/api/v1/fences/{unit}"),
    START_SWITCHOVER("startSwitchover", "POST", "/api/v1/switchovers"),
    GET_SWITCHOVER("getSwitchover", "GET", "/api/v1/switchovers/{id}"),
    ABORT_SWITCHOVER("abortSwitchover", "POST", "/api/v1/switchovers/{id}/abort"),
    ACCEPT_PROPOSAL("acceptProposal", "POST", "/api/v1/proposals/{id}/accept"),
    GET_AUDIT("getAudit", "GET", "/api/v1/audit"),
    WATCH("watch", "GET", "/api/v1/watch");

    private final String id;
    private final String method;
    private final String template;

    Operation(String id, String method, String template) {
        this.id = id;
        this.method = method;
        this.template = template;
    }

    /** Its {@code operationId}. */
    public String id() {
        return id;
    }

    /** Its HTTP method. */
    public String method() {
        return method;
    }

    /** Its path template, {@code /api/v1/fences/{unit}}. */
    public String template() {
        return template;
    }

    /**
     * The path with {@code values} in the template's parameters, in order, each encoded as one segment (a unit id
     * with a slash or a space stays one segment).
     */
    public String path(String... values) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        int i = 0;
        for (int open = template.indexOf('{'); open >= 0; open = template.indexOf('{', at)) {
            if (i >= values.length) {
                throw new IllegalArgumentException(id + ": " + values.length + " path values (expected: more)");
            }
            String value = values[i++];
            if (value == null || value.isEmpty()) {
                throw new IllegalArgumentException(id + ": " + template.substring(open, template.indexOf('}', open) + 1)
                                                   + ": empty (expected: an id)");
            }
            out.append(template, at, open).append(segment(value));
            at = template.indexOf('}', open) + 1;
        }
        if (i != values.length) {
            throw new IllegalArgumentException(id + ": " + values.length + " path values (expected: " + i + ")");
        }
        return out.append(template.substring(at)).toString();
    }

    /** {@code value} as one path segment (RFC 3986: a space is {@code %20}, never {@code +}). */
    static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    @Override
    public String toString() {
        return method + " " + template + " (" + id + ")";
    }

    /** The operation named {@code id}, as the document names it. */
    public static Operation byId(String id) {
        for (Operation op : values()) {
            if (op.id.equals(id)) {
                return op;
            }
        }
        throw new IllegalArgumentException("operation '" + id + "' (expected: an operationId the client calls)");
    }

    /** Lower-case method, as OpenAPI keys its operations. */
    public String methodKey() {
        return method.toLowerCase(Locale.ROOT);
    }
}
