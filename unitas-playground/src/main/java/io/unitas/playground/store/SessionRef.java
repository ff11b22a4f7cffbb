package io.unitas.playground.store;

import java.util.Objects;

/**
 * A session as a request names it: the user it claims to be and the token it presents. The user's unit is the
 * session's home; the token alone does not say where that is.
 *
 * @param userId the user the request names
 * @param token  the token it presents
 */
public record SessionRef(String userId, String token) {

    /** Requires both parts. */
    public SessionRef {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(token, "token");
    }
}
