package io.unitas.client;

import java.util.Objects;

import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.UnitLookup;
import io.unitas.core.rules.UnitRules;

/**
 * Where one request belongs, as it travels through a service and on to the next: its unit, the region the gateway
 * routed it to, the region whose gateway first saw it, how many gateways it has passed, and its gray version. The
 * gateway stamps these as headers ({@link RoutingHeaders}); a service reads them on the way in, keeps them for the
 * request's work ({@link RoutingContextHolder}) and writes them on every call it makes.
 *
 * @param unit    the request's unit id, or {@code null} (a key-less request sent to the center, a job)
 * @param region  the region the request was routed to (its unit's home, or the failover target), or {@code null}
 * @param origin  the region whose gateway first routed it, or {@code null}
 * @param hops    how many unitas gateways it has passed; at least 0
 * @param version the gray version the unit's rules picked, or {@code null}
 */
public record RoutingContext(String unit, String region, String origin, int hops, String version) {

    /** The context of a request that carries no stamp. */
    public static final RoutingContext EMPTY = new RoutingContext(null, null, null, 0, null);

    /** Checks the hop count and turns empty strings into {@code null}. */
    public RoutingContext {
        if (hops < 0) {
            throw new IllegalArgumentException("hops: " + hops + " (expected: >= 0)");
        }
        unit = blankToNull(unit);
        region = blankToNull(region);
        origin = blankToNull(origin);
        version = blankToNull(version);
    }

    /**
     * The context of work that starts without a stamp (a scheduled job, a message consumer) for the user with routing
     * key {@code key}, placed by the same unit rules as the gateway's: the key is transformed and matched against the
     * ranges, and the context names the unit and its home region.
     *
     * @throws IllegalArgumentException naming the key when it belongs to no unit (bad key, out of every range)
     */
    public static RoutingContext forKey(UnitRules rules, String key) {
        Objects.requireNonNull(key, "key");
        KeySource source = rules.sources().isEmpty() ? KeySource.header("key") : rules.sources().get(0);
        UnitLookup lookup = rules.lookupKey(source, key);
        if (lookup.outcome() != UnitLookup.Outcome.UNIT) {
            throw new IllegalArgumentException("key: '" + key + "' (expected: a key of a unit; " + lookup.message()
                                               + ")");
        }
        return new RoutingContext(lookup.unit().id(), lookup.region().id(), null, 0, null);
    }

    /** Whether nothing is known: no unit, no region. */
    public boolean isEmpty() {
        return unit == null && region == null;
    }

    /** This context with another unit. */
    public RoutingContext withUnit(String unit) {
        return new RoutingContext(unit, region, origin, hops, version);
    }

    /** This context with another routed region. */
    public RoutingContext withRegion(String region) {
        return new RoutingContext(unit, region, origin, hops, version);
    }

    /** This context with another gray version ({@code null}: none). */
    public RoutingContext withVersion(String version) {
        return new RoutingContext(unit, region, origin, hops, version);
    }

    private static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
