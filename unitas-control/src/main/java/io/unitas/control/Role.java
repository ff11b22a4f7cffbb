package io.unitas.control;

import java.util.Locale;

/**
 * What a token may do. Each role includes the ones before it: {@code viewer} reads; {@code reporter} also pushes
 * region health; {@code operator} also changes rules, fences and switchovers; {@code admin} also replaces the
 * topology.
 */
public enum Role {
    /** Reads state, audit and the watch stream. */
    VIEWER,
    /** A health agent: viewer, plus {@code PUT /api/v1/health/{region}}. */
    REPORTER,
    /** Rules, fences, switchovers, and health reports. */
    OPERATOR,
    /** Everything, including the topology. */
    ADMIN;

    /** Whether this role may do what {@code needed} may. */
    public boolean allows(Role needed) {
        return ordinal() >= needed.ordinal();
    }

    /** The lowercase name used in tokens files and JSON. */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The role named {@code name} ({@code viewer}, {@code reporter}, {@code operator}, {@code admin}). */
    public static Role fromName(String name) {
        for (Role role : values()) {
            if (role.jsonName().equals(name)) {
                return role;
            }
        }
        throw new IllegalArgumentException("role: '" + name + "' (expected: viewer, reporter, operator or admin)");
    }
}
