package io.unitas.core;

import java.util.regex.Pattern;

/**
 * A datacenter or cloud region ({@code cn}, {@code eu}, {@code us}), named by a short lowercase id.
 * Two regions are the same when their ids are.
 */
public record Region(String id) implements Comparable<Region> {

    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

    /** Creates a region, rejecting an id that is empty or not lowercase letters, digits, '-' and '_'. */
    public Region {
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException(
                    "region id: '" + id + "' (expected: lowercase letters, digits, '-' or '_', at most 63)");
        }
    }

    /** Shorthand for {@code new Region(id)}. */
    public static Region of(String id) {
        return new Region(id);
    }

    /** Whether {@code id} is a well-formed region id. */
    public static boolean isValidId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    // Written out, rather than left to the record, because health lookups on the routing hot path hash regions.
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Region r && id.equals(r.id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public int compareTo(Region other) {
        return id.compareTo(other.id);
    }

    @Override
    public String toString() {
        return id;
    }
}
