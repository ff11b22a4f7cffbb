package io.unitas.data;

import io.unitas.core.Region;
import java.util.Objects;

/**
 * Where a key's data is at home: the unit that owns the key and the region that unit lives in now; or, when the key
 * belongs to no unit (a malformed key, a key outside every range), why not.
 *
 * @param key     the key looked up (a user id, an account number)
 * @param unit    the id of the unit that owns it, or {@code null} when none does
 * @param region  the unit's home region, or {@code null} when no unit owns the key
 * @param problem why no unit owns the key, empty when one does
 */
public record Home(String key, String unit, Region region, String problem) {

    /** Requires a key and a problem, and a unit with its region exactly when there is no problem. */
    public Home {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(problem, "problem");
        if (problem.isEmpty() == (unit == null || region == null)) {
            throw new IllegalArgumentException("home of '" + key + "': unit " + unit + ", region " + region
                                               + ", problem '" + problem + "' (expected: a unit and its region,"
                                               + " or a problem)");
        }
    }

    /** {@code key} is owned by {@code unit}, at home in {@code region}. */
    public static Home of(String key, String unit, Region region) {
        return new Home(key, Objects.requireNonNull(unit, "unit"), Objects.requireNonNull(region, "region"), "");
    }

    /** {@code key} belongs to no unit, because of {@code why}. */
    public static Home none(String key, String why) {
        if (why.isEmpty()) {
            throw new IllegalArgumentException("why: empty (expected: the reason the key has no unit)");
        }
        return new Home(key, null, null, why);
    }

    /** Whether a unit owns the key. */
    public boolean found() {
        return problem.isEmpty();
    }
}
