package io.unitas.config;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.core.Problem;
import io.unitas.core.ProblemDetail;

/**
 * The one JSON codec of {@link ProblemDetail}, {@code application/problem+json} (RFC 9457): the gateway, the control
 * plane and services write it, clients read it back. {@code Retry-After} is a header, not a member.
 */
public final class ProblemJson {

    /** The media type of a problem body. */
    public static final String MEDIA_TYPE = "application/problem+json";

    private static final Set<String> STANDARD = Set.of("type", "title", "status", "detail", "problems");
    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final ObjectMapper READER = JsonMapper.builder(
            JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64)
                                                                .maxNumberLength(100).build())
                    .build()).build();

    private ProblemJson() {}

    /** The problem as a JSON tree: the standard members, then {@code problems} when any, then the extensions. */
    public static ObjectNode tree(ProblemDetail problem) {
        ObjectNode body = JSON.createObjectNode()
                              .put("type", problem.typeUri())
                              .put("title", problem.title())
                              .put("status", problem.status())
                              .put("detail", problem.detail());
        if (!problem.problems().isEmpty()) {
            var list = body.putArray("problems");
            problem.problems().forEach(p -> list.addObject().put("path", p.path()).put("message", p.message()));
        }
        problem.extensions().forEach((name, value) -> body.set(name, JSON.valueToTree(value)));
        return body;
    }

    /** The problem's body, UTF-8 JSON. */
    public static byte[] encode(ProblemDetail problem) {
        try {
            return JSON.writeValueAsBytes(tree(problem));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("problem " + problem.type() + ": extension not writable as JSON: "
                                               + e.getOriginalMessage(), e);
        }
    }

    /**
     * Reads a problem body back. Missing members take RFC 9457's defaults ({@code about:blank}, the status given);
     * anything not an object is an {@link IllegalArgumentException} saying what was expected.
     *
     * @param body       the body as received
     * @param httpStatus the response's status, used when the body has no {@code status}
     * @param retryAfter the response's {@code Retry-After}, {@link Duration#ZERO} when absent
     */
    public static ProblemDetail decode(byte[] body, int httpStatus, Duration retryAfter) {
        JsonNode root;
        try {
            root = READER.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("problem body: not valid JSON (expected: an RFC 9457 object)");
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("problem body: " + (root == null ? "empty" : root.getNodeType())
                                               + " (expected: an RFC 9457 object)");
        }
        String type = ProblemDetail.typeName(text(root, "type", "about:blank"));
        JsonNode statusNode = root.get("status");
        int status = statusNode != null && statusNode.canConvertToInt() && statusNode.asInt() >= 100
                     && statusNode.asInt() <= 599 ? statusNode.asInt() : httpStatus;
        List<Problem> problems = new ArrayList<>();
        if (root.path("problems").isArray()) {
            for (JsonNode p : root.get("problems")) {
                problems.add(new Problem(text(p, "path", ""), text(p, "message", "")));
            }
        }
        Map<String, Object> extensions = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> member : root.properties()) {
            if (!STANDARD.contains(member.getKey())) {
                extensions.put(member.getKey(), member.getValue());
            }
        }
        return new ProblemDetail(type, text(root, "title", type.replace('-', ' ')), status, text(root, "detail", ""),
                                 retryAfter.isNegative() ? Duration.ZERO : retryAfter, problems, extensions);
    }

    private static String text(JsonNode node, String member, String fallback) {
        JsonNode v = node.get(member);
        return v != null && v.isTextual() ? v.asText() : fallback;
    }
}
