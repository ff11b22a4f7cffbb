package io.unitas.core.routing;

import java.util.Objects;

import io.unitas.core.Region;

/**
 * The {@link Verdict.Forward}s a decision has made, found again rather than made again: a request of a known unit
 * routed as the one before it gets the very same value, so deciding allocates nothing. A direct-mapped table of
 * immutable values shared by every thread without a lock: a slot read while another thread replaces it is an old
 * whole value or a new whole one (the record's fields are final), and a lost write costs one allocation.
 */
final class ForwardCache {

    /** Slots; a power of two. Units times the few routes of each fit many times over. */
    static final int SLOTS = 256;

    private final Verdict.Forward[] slots = new Verdict.Forward[SLOTS];

    /** The verdict forwarding to {@code target}: the cached one when it has these very values, else a new one. */
    Verdict.Forward forward(String unit, Region home, Region target, String route, String version) {
        int h = Objects.hashCode(unit);
        h = 31 * h + target.hashCode();
        h = 31 * h + route.hashCode();
        int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
        Verdict.Forward f = slots[slot];
        if (f != null && Objects.equals(f.unit(), unit) && Objects.equals(f.home(), home)
            && f.target().equals(target) && f.route().equals(route) && Objects.equals(f.version(), version)) {
            return f;
        }
        f = new Verdict.Forward(unit, home, target, route, version);
        slots[slot] = f;
        return f;
    }
}
