package io.unitas.control.client.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;

/**
 * A raw API response (for tests of the server's HTTP handling and receivers given as URLs): its status, its body, and the revision from its {@code ETag} (0 when it has none).
 *
 * @param status   the HTTP status
 * @param body     the body as text (JSON, or problem JSON for a refusal)
 * @param revision the revision the response is about, from {@code ETag}
 */
public record ControlResponse(int status, String body, long revision) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The body parsed as JSON. */
    public JsonNode json() {
        try {
            return JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** The refusal's RFC 9457 problem, when this is a refusal with a problem body. */
    public Optional<ProblemDetail> problem() {
        if (ok()) {
            return Optional.empty();
        }
        try {
            return Optional.of(ProblemJson.decode(body.getBytes(StandardCharsets.UTF_8), status, Duration.ZERO));
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // not a problem body: a proxy's page, say
        }
    }

    /** The {@code detail} of a problem body (RFC 9457), or the body itself, shortened, when it is not one. */
    public static String problemDetail(String body) {
        try {
            String detail = ProblemJson.decode(body.getBytes(StandardCharsets.UTF_8), 500, Duration.ZERO).detail();
            if (!detail.isEmpty()) {
                return detail;
            }
        } catch (IllegalArgumentException e) {
            // not JSON: the text itself says what happened
        }
        String text = body.strip();
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }

    /** Whether the status is 2xx. */
    public boolean ok() {
        return status / 100 == 2;
    }
}
