package io.unitas.control.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** How the typed methods put their arguments into requests: path segments, the reason header, small bodies. */
final class Requests {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Requests() {}

    /** {@code value} as one path segment (a unit or region id is never allowed to add segments). */
    static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** The {@code X-Unitas-Reason} header, when there is a reason. */
    static Map<String, String> reason(String reason) {
        return reason == null || reason.isEmpty() ? Map.of() : Map.of("X-Unitas-Reason", reason);
    }

    /** A JSON object of name/value pairs; null values are left out. */
    static String object(Object... pairs) {
        ObjectNode o = JSON.createObjectNode();
        for (int i = 0; i < pairs.length; i += 2) {
            Object value = pairs[i + 1];
            if (value != null) {
                o.set((String) pairs[i], JSON.valueToTree(value));
            }
        }
        return o.toString();
    }
}
