package io.unitas.data.store;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The response an idempotent request produced, kept so a replay returns exactly it: status, body, media type and the
 * headers the service chose to keep (a {@code Location}, an {@code ETag}...).
 *
 * @param status      the HTTP status code (or any status the service uses)
 * @param body        the response body
 * @param contentType the body's media type, empty when the response had none
 * @param headers     further headers to replay, by name in the order given; never hop-by-hop or per-request ones
 */
public record StoredResponse(int status, String body, String contentType, Map<String, String> headers) {

    /** Requires a body; a {@code null} content type is none, the headers are copied (names and values one line). */
    public StoredResponse {
        Objects.requireNonNull(body, "body");
        contentType = contentType == null ? "" : contentType;
        Map<String, String> copy = new LinkedHashMap<>();
        if (headers != null) {
            headers.forEach((name, value) -> {
                if (name == null || name.isBlank() || !name.chars().allMatch(c -> c > ' ' && c < 127 && c != ':')
                    || value == null || value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
                    throw new IllegalArgumentException("header '" + name + "': '" + value
                                                       + "' (expected: a token name and a one-line value)");
                }
                copy.put(name, value);
            });
        }
        headers = Collections.unmodifiableMap(copy);
    }

    /** A response without a media type or headers to replay. */
    public StoredResponse(int status, String body) {
        this(status, body, "", Map.of());
    }
}
