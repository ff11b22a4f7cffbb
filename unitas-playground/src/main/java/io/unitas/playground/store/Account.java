package io.unitas.playground.store;

import io.unitas.core.Region;
import java.time.Instant;
import java.util.Objects;

/**
 * A registered user: who, which unit they belong to, and the region that is home to that unit at registration.
 *
 * @param userId       the user's id
 * @param unit         the id of the user's unit
 * @param home         the home region of the unit when the user registered
 * @param name         the display name
 * @param registeredAt when the home region acknowledged the registration
 */
public record Account(String userId, String unit, Region home, String name, Instant registeredAt) {

    /** Requires every part. */
    public Account {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(registeredAt, "registeredAt");
    }
}
