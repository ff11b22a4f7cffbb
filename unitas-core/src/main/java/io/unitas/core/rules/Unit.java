package io.unitas.core.rules;

import java.util.Objects;
import java.util.regex.Pattern;

import io.unitas.core.Region;

/**
 * A slice of users with one home region at a time ({@code u-cn} lives in {@code cn}). Two units with the same id
 * and home are equal; a switchover produces a new {@code Unit} with another home.
 *
 * @param id   short lowercase id, unique within a rule set
 * @param home the region that holds the unit's data and serves it when healthy
 */
public record Unit(String id, Region home) {

    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

    /** Creates a unit, rejecting a malformed id or a missing home. */
    public Unit {
        if (!isValidId(id)) {
            throw new IllegalArgumentException("unit id: '" + id + "' (expected: " + ID_RULE + ")");
        }
        Objects.requireNonNull(home, "home");
    }

    /** What a well-formed unit id looks like, for messages. */
    static final String ID_RULE = "lowercase letters, digits, '-' or '_', at most 63";

    /** Shorthand for {@code new Unit(id, Region.of(home))}. */
    public static Unit of(String id, String home) {
        return new Unit(id, Region.of(home));
    }

    /** Whether {@code id} is a well-formed unit id. */
    public static boolean isValidId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    /** A copy of this unit living in {@code region}. */
    public Unit movedTo(Region region) {
        return new Unit(id, region);
    }

    @Override
    public String toString() {
        return id + "@" + home;
    }
}
