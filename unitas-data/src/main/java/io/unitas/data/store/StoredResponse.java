package io.unitas.data.store;

import java.util.Objects;

/**
 * The response an idempotent request produced, kept so a replay returns exactly it.
 *
 * @param status the HTTP status code (or any status the service uses)
 * @param body   the response body
 */
public record StoredResponse(int status, String body) {

    /** Requires a body. */
    public StoredResponse {
        Objects.requireNonNull(body, "body");
    }
}
