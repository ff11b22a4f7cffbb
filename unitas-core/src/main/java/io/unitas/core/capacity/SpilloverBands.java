package io.unitas.core.capacity;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.RouteDecision;
import io.unitas.core.Topology;
import io.unitas.core.rules.KeyTransform;

/**
 * Where the users of a down home region go, one user at a time, so that a gateway and the offline planner agree:
 * the home's users are split into <em>bands</em> of a stable hash of their key, one band per fallback region, sized
 * by the room the fallback regions have.
 *
 * <p>Built from a topology, the load each home brings (keyed by home id; homes not named bring 0) and which regions
 * are admitted. Exactly:
 * <ul>
 *   <li>An admitted region starts with its own home's load; a region without a capacity has unlimited room.</li>
 *   <li>The homes that are not admitted are taken in topology order. A home's load {@code L} is poured into the
 *       admitted regions of its fallback list, in order, each taking up to its room left (capacity minus what it
 *       already carries, never below 0); the first admitted region's share is {@code failover}, a later one's
 *       {@code spillover}. Load no region has room for is {@code overflow} to the first admitted region. A home
 *       with {@code L = 0} fails over whole to the first admitted region, as the plain route decision does.</li>
 *   <li>A user's {@linkplain #position position} is the top 63 bits of the 64-bit FNV-1a hash of the UTF-8 bytes of
 *       its key ({@link KeyTransform#fnv1a64}) passed through MurmurHash3's 64-bit finalizer: FNV-1a alone spreads
 *       its top bits badly over keys that differ in their last characters ({@code user-1}, {@code user-2}, …),
 *       so bands would be far from their shares. The shares become consecutive bands of {@code [0, 2^63)} in the
 *       order above, each of width {@code share / L}, and a user goes where its position falls.</li>
 * </ul>
 * Bands weigh load, not users: a band holds about its share of the home's users, so a region can end slightly
 * over or under its room when users' loads are uneven or few.
 *
 * <p>{@link #decide} looks up and compares only: it allocates nothing.
 */
public final class SpilloverBands {

    private static final double SCALE = 0x1p63;

    private final Map<String, Home> homes;
    private final long validUntilMs;

    private SpilloverBands(Map<String, Home> homes, long validUntilMs) {
        this.homes = homes;
        this.validUntilMs = validUntilMs;
    }

    /**
     * The bands of every home under {@code health}, every healthy region admitted (the steady state, as offline
     * planning sees it).
     *
     * @throws IllegalArgumentException when a load is negative or not finite
     */
    public static SpilloverBands of(Topology topology, Map<String, Double> loadByHome, HealthSnapshot health) {
        return of(topology, loadByHome, health, Long.MAX_VALUE, Duration.ZERO);
    }

    /**
     * The bands of every home under {@code health} at {@code nowMs}, a region admitted as the router admits it
     * ({@link RegionHealth#admitted}); they hold until {@link #validUntilMs()}.
     *
     * @throws IllegalArgumentException when a load is negative or not finite
     */
    public static SpilloverBands of(Topology topology, Map<String, Double> loadByHome, HealthSnapshot health,
                                    long nowMs, Duration holdDown) {
        List<Region> regions = topology.regions();
        int n = regions.size();
        long holdDownMs = holdDown.toMillis();
        Map<String, Integer> index = new HashMap<>();
        boolean[] admitted = new boolean[n];
        double[] room = new double[n];
        double[] homeLoad = new double[n];
        long until = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            Region r = regions.get(i);
            index.put(r.id(), i);
            RegionHealth h = health.regions().get(r);
            admitted[i] = h != null && h.admitted(nowMs, holdDownMs);
            if (h != null && h.healthy() && !admitted[i]) { // held down: the bands change when that ends
                until = Math.min(until, h.healthySinceMs() + holdDownMs - 1);
            }
            room[i] = topology.capacity(r).orElse(Double.POSITIVE_INFINITY);
        }
        for (Map.Entry<String, Double> e : loadByHome.entrySet()) {
            double v = e.getValue();
            if (!(v >= 0 && Double.isFinite(v))) {
                throw new IllegalArgumentException("load of home " + e.getKey() + ": " + v
                                                   + " (expected: a number >= 0)");
            }
            Integer i = index.get(e.getKey());
            if (i != null) {
                homeLoad[i] += v;
            }
        }
        for (int i = 0; i < n; i++) {
            if (admitted[i]) {
                room[i] -= homeLoad[i];
            }
        }
        Map<String, Home> homes = new HashMap<>();
        for (int h = 0; h < n; h++) {
            if (admitted[h]) {
                continue;
            }
            Region home = regions.get(h);
            List<Integer> candidates = new ArrayList<>();
            for (Region f : topology.fallback(home)) {
                if (admitted[index.get(f.id())]) {
                    candidates.add(index.get(f.id()));
                }
            }
            if (candidates.isEmpty() || homeLoad[h] <= 0) {
                continue; // no bands: every user of the home takes the routed failover, its first admitted region
            }
            homes.put(home.id(), pour(home, regions, candidates, homeLoad[h], room));
        }
        return new SpilloverBands(homes, until);
    }

    /** Pours {@code load} (> 0) into {@code candidates}' room (taking it from {@code room}) and cuts the bands. */
    private static Home pour(Region home, List<Region> regions, List<Integer> candidates, double load, double[] room) {
        int first = candidates.get(0);
        List<Long> limits = new ArrayList<>();
        List<RouteDecision> decisions = new ArrayList<>();
        double left = load;
        double poured = 0;
        for (int c : candidates) {
            double take = Math.min(left, Math.max(0, room[c]));
            if (take <= 0) {
                continue;
            }
            room[c] -= take;
            left -= take;
            poured += take;
            limits.add(left <= 0 ? Long.MAX_VALUE : (long) Math.floor(poured / load * SCALE));
            decisions.add(c == first ? RouteDecision.failover(home, regions.get(c))
                                     : new RouteDecision(RouteDecision.Outcome.SPILLOVER, home.id(), regions.get(c)));
            if (left <= 0) {
                break;
            }
        }
        if (left > 0) {
            room[first] -= left;
            limits.add(Long.MAX_VALUE);
            decisions.add(new RouteDecision(RouteDecision.Outcome.OVERFLOW, home.id(), regions.get(first)));
        }
        return new Home(limits.stream().mapToLong(Long::longValue).toArray(), decisions.toArray(RouteDecision[]::new));
    }

    /**
     * A user's position among the bands: the FNV-1a hash of {@code userKey}'s UTF-8 bytes, mixed by MurmurHash3's
     * {@code fmix64}, top 63 bits. Stable across versions and machines; allocates nothing.
     */
    public static long position(CharSequence userKey) {
        long z = KeyTransform.fnv1a64(userKey);
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return (z ^ (z >>> 33)) >>> 1;
    }

    /**
     * The decision for a user at {@code position} whose route decision is {@code routed}: where {@code routed} is a
     * {@link RouteDecision.Outcome#FAILOVER failover}, the decision of the band the position falls in
     * ({@code failover}, {@code spillover} or {@code overflow}); any other decision as it is.
     */
    public RouteDecision decide(RouteDecision routed, long position) {
        if (routed.outcome() != RouteDecision.Outcome.FAILOVER) {
            return routed;
        }
        Home home = homes.get(routed.home());
        return home == null ? routed : home.decide(position);
    }

    /** The last epoch millisecond these bands hold: a held-down region's admission changes them after it. */
    public long validUntilMs() {
        return validUntilMs;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("SpilloverBands{");
        homes.forEach((id, h) -> b.append(id).append('=').append(h).append(' '));
        return b.append('}').toString();
    }

    /** The bands of one down home: band {@code i} takes the positions below {@code limits[i]} not taken before. */
    private record Home(long[] limits, RouteDecision[] decisions) {

        RouteDecision decide(long position) {
            for (int i = 0; i < limits.length - 1; i++) {
                if (position < limits[i]) {
                    return decisions[i];
                }
            }
            return decisions[limits.length - 1];
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < limits.length; i++) {
                b.append(i == 0 ? "" : ", ").append(decisions[i].target().id()).append(' ')
                 .append(decisions[i].outcome().reason()).append(" < ").append(limits[i]);
            }
            return b.append(']').toString();
        }
    }
}
