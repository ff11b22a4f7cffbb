package io.unitas.playground.store;

import java.time.Instant;
import java.util.Objects;

/**
 * A logged-in session.
 *
 * @param token     the session's secret id, as the client presents it
 * @param userId    whose session it is
 * @param expiresAt when it stops being valid
 */
public record Session(String token, String userId, Instant expiresAt) {

    /** Requires every part. */
    public Session {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }

    /** Whether the session is still valid at {@code now}. */
    public boolean isValidAt(Instant now) {
        return now.isBefore(expiresAt);
    }
}
