package io.unitas.control;

import java.util.Locale;

/**
 * What a token may do. Each role includes the ones before it: {@code viewer} reads; {@code observer} also reports a
 * peer region it cannot reach (a gateway); {@code reporter} also pushes region health; {@code operator} also changes
 * rules, fences and switchovers; {@code admin} also replaces the topology.
 */
public enum Role {
    /** Reads state, audit and the watch stream. */
    VIEWER,
    /**
     * A gateway: viewer, plus {@code POST /api/v1/health/{region}/unreachable}, the evidence that it cannot connect to
     * a peer region; bound to a region, it speaks for that region only.
     */
    OBSERVER,
    /** A health agent: observer, plus {@code PUT /api/v1/health/{region}}. */
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

    /**
     * The role named {@code name} ({@code viewer}, {@code observer}, {@code reporter}, {@code operator},
     * {@code admin}).
     */
    public static Role fromName(String name) {
        for (Role role : values()) {
            if (role.jsonName().equals(name)) {
                return role;
            }
        }
        throw new IllegalArgumentException("role: '" + name
                                           + "' (expected: viewer, observer, reporter, operator or admin)");
    }
}
