package io.unitas.gateway;

import java.util.Objects;

import io.unitas.core.Region;

/**
 * The forwarding {@link Decision}s a dispatcher has made, found again rather than made again: a request of a known
 * unit routed as the one before it gets the very same value, so deciding allocates nothing. A direct-mapped table of
 * immutable values shared by every event loop without a lock: a slot read while another loop replaces it is an old
 * whole value or a new whole one (the record's fields are final), and a lost write costs one allocation.
 */
final class DecisionCache {

    /** Slots; a power of two. Units times the few routes of each fit many times over. */
    static final int SLOTS = 256;

    private final Decision[] slots = new Decision[SLOTS];

    /** The decision forwarding to {@code target}: the cached one when it has these very values, else a new one. */
    Decision forward(String unit, Region home, Region target, String route, String version, int hops) {
        int h = Objects.hashCode(unit);
        h = 31 * h + target.hashCode();
        h = 31 * h + route.hashCode();
        h = 31 * h + hops;
        int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
        Decision d = slots[slot];
        if (d != null && d.hops() == hops && Objects.equals(d.unit(), unit) && Objects.equals(d.home(), home)
            && d.target().equals(target) && d.route().equals(route) && Objects.equals(d.version(), version)) {
            return d;
        }
        d = new Decision(unit, home, target, route, version, hops, null);
        slots[slot] = d;
        return d;
    }
}
