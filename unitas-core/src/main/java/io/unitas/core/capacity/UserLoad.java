package io.unitas.core.capacity;

import java.util.Objects;

/**
 * One user as capacity planning sees it: an id, the id of its home region (which may name no region of the
 * topology) and the load it brings, in the same unit as region capacities.
 *
 * @param userId the user's id, never empty
 * @param home   the id of the user's home region as given
 * @param load   the user's load, a finite number {@code >= 0}
 */
public record UserLoad(String userId, String home, double load) {

    /** Validates the parts. */
    public UserLoad {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(home, "home");
        if (userId.isEmpty()) {
            throw new IllegalArgumentException("user_id: '' (expected: a non-empty id)");
        }
        if (!(load >= 0 && Double.isFinite(load))) {
            throw new IllegalArgumentException("load: " + load + " (expected: a number >= 0)");
        }
    }

    /** A user with load 1. */
    public static UserLoad of(String userId, String home) {
        return new UserLoad(userId, home, 1);
    }
}
