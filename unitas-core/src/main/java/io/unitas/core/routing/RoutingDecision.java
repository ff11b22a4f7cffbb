package io.unitas.core.routing;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

import io.unitas.core.ProblemType;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.capacity.SpilloverBands;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.TokenBucket;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitLookup;

/**
 * The one routing decision, from one request's facts and a {@link RoutingSnapshot} to a {@link Verdict}: routing key
 * → unit → home region → the router's route, or write route for a write (a read-only region keeps its reads; its
 * writes follow the unit's {@link ReadOnlyPolicy}) → spillover of a failover by the key's band
 * ({@link SpilloverBands}) → read-only refusal → write fence → throttle. The gateway forwards by it, the service SDK
 * tags and fences by it, and DNS and {@code unitas route} take its region-level part ({@link #region}).
 *
 * <p>A request pre-routed by a trusted peer (its region stamp given) goes where the stamp says; its unit, for the
 * fence and the gray version, is the one its key names, never a unit it carries, and a write whose unit cannot be
 * told from its key is refused while any unit is fenced.
 *
 * <p>Pure but for the token buckets of throttled units, which a passing throttled write takes from. Facts are
 * parameters rather than a value so that deciding allocates nothing for a forwarded request.
 */
public final class RoutingDecision {

    /** The route reason of a request a trusted peer routed. */
    public static final String PREROUTED = "prerouted";
    /** What a refused write is told to wait when its fence does not say. */
    public static final Duration DEFAULT_RETRY_AFTER = FencePolicy.DEFAULT_RETRY_AFTER;
    /** What a request finding no healthy region is told to wait. */
    static final Duration NO_HEALTHY_REGION_RETRY_AFTER = Duration.ofSeconds(5);

    private final Region self;
    private final Function<String, ReadOnlyPolicy> onReadOnly;
    private final String stampName;
    private final ForwardCache forwards = new ForwardCache();

    private RoutingDecision(Region self, Function<String, ReadOnlyPolicy> onReadOnly, String stampName) {
        this.self = Objects.requireNonNull(self, "self");
        this.onReadOnly = Objects.requireNonNull(onReadOnly, "onReadOnly");
        this.stampName = Objects.requireNonNull(stampName, "stampName");
    }

    /**
     * The decision as region {@code self} takes it: gray versions apply only to a unit at home here;
     * {@code onReadOnly} gives each unit id's read-only policy ({@code null} id: no unit) and must not allocate;
     * {@code stampName} is the region stamp's header, named in the refusal of a stamp naming no region.
     */
    public static RoutingDecision of(Region self, Function<String, ReadOnlyPolicy> onReadOnly, String stampName) {
        return new RoutingDecision(self, onReadOnly, stampName);
    }

    /** The decision for {@code self} with one read-only policy for every unit and the {@code x-unitas-region} stamp. */
    public static RoutingDecision of(Region self, ReadOnlyPolicy onReadOnly) {
        Objects.requireNonNull(onReadOnly, "onReadOnly");
        return new RoutingDecision(self, unit -> onReadOnly, "x-unitas-region");
    }

    /** The region deciding. */
    public Region self() {
        return self;
    }

    /** The read-only policy of {@code unitId} ({@code null}: no unit). */
    public ReadOnlyPolicy onReadOnly(String unitId) {
        return onReadOnly.apply(unitId);
    }

    /**
     * The verdict on a {@code method} request of {@code path} whose headers, cookies, query and host {@code view}
     * shows, at {@code nowMs} (epoch milliseconds).
     *
     * @param stamp the region a trusted peer routed it to, or {@code null}: route it here
     */
    public Verdict decide(RoutingSnapshot s, String method, String path, RequestView view, String stamp, long nowMs) {
        return decide(s, method, path, view, stamp, null, nowMs);
    }

    /**
     * As {@link #decide(RoutingSnapshot, String, String, RequestView, String, long)}, for a service that may know the
     * request's unit without its key: {@code knownUnit} (a unit id the gateway stamped) stands in where the key names
     * no unit (no key, the center, a key out of every range), never where the key is ambiguous. Without a key there is
     * no band to spill over by.
     */
    public Verdict decide(RoutingSnapshot s, String method, String path, RequestView view, String stamp,
                          String knownUnit, long nowMs) {
        if (s.rules() == null) {
            return new Verdict.Refuse(null, null, null, null, ProblemType.NO_ROUTING_STATE,
                                      "region " + self + " has no unit rules to route by", Duration.ofSeconds(1));
        }
        UnitLookup lookup = s.rules().lookup(view);
        return stamp == null ? route(s, method, path, view, lookup, knownUnit, nowMs)
                             : prerouted(s, method, path, view, lookup, stamp);
    }

    private Verdict route(RoutingSnapshot s, String method, String path, RequestView view, UnitLookup lookup,
                          String knownUnit, long nowMs) {
        Unit unit;
        Region home;
        String key;
        Unit known = knownUnit == null || lookup.outcome() == UnitLookup.Outcome.UNIT
                     || lookup.outcome() == UnitLookup.Outcome.AMBIGUOUS_KEY ? null : s.rules().unit(knownUnit);
        if (known != null) {
            unit = known;
            home = known.home();
            key = null;
        } else {
            Verdict.Refuse unroutable = unroutable(lookup, null);
            if (unroutable != null) {
                return unroutable;
            }
            unit = lookup.unit();
            home = lookup.region();
            key = lookup.key();
        }
        String unitId = unit == null ? null : unit.id();
        boolean write = s.fences().writes().isWrite(method, path);
        RouteDecision decision = region(s, home.id(), key, write, onReadOnly.apply(unitId), nowMs);
        if (decision.outcome() == RouteDecision.Outcome.READ_ONLY) {
            return new Verdict.Refuse(unitId, home, decision.target(), decision.outcome().reason(),
                                      ProblemType.READ_ONLY, decision.message() + ofUnit(unitId) + "; reads still pass",
                                      DEFAULT_RETRY_AFTER);
        }
        if (!decision.hasTarget()) {
            return new Verdict.Refuse(unitId, home, null, null, ProblemType.NO_HEALTHY_REGION,
                                      decision.message() + ofUnit(unitId), NO_HEALTHY_REGION_RETRY_AFTER);
        }
        return target(s, method, path, view, unit, home, decision.target(), decision.outcome().reason());
    }

    private static String ofUnit(String unitId) {
        return unitId == null ? "" : " (unit " + unitId + ")";
    }

    /**
     * The region-level part of the decision, the one DNS and {@code unitas route} take: the router's route (its write
     * route for a write, by {@code policy}) for home {@code homeId} at {@code nowMs}, a failover spilled over by the
     * band of {@code key} ({@code null}: no key, no spillover). A write keeps the routed region (the first admitted,
     * writable) where its band's region is read-only.
     */
    public static RouteDecision region(RoutingSnapshot s, String homeId, CharSequence key, boolean write,
                                       ReadOnlyPolicy policy, long nowMs) {
        RouteDecision decision = write ? s.router().routeWrite(homeId, s.health(), nowMs, policy)
                                       : s.router().route(homeId, s.health(), nowMs);
        if (key == null || decision.outcome() != RouteDecision.Outcome.FAILOVER || !s.spills()) {
            return decision;
        }
        RouteDecision spilled = s.spill(decision, SpilloverBands.position(key), nowMs);
        return spilled != decision && (!write || s.health().get(spilled.target()).writable()) ? spilled : decision;
    }

    /** The refusal of a request whose key names no unit or center, or {@code null} when it names one. */
    private static Verdict.Refuse unroutable(UnitLookup lookup, String route) {
        ProblemType type = switch (lookup.outcome()) {
            case UNIT, CENTER -> null;
            case MISSING_KEY -> ProblemType.MISSING_ROUTING_KEY;
            case AMBIGUOUS_KEY -> ProblemType.AMBIGUOUS_ROUTING_KEY;
            default -> ProblemType.UNROUTABLE_KEY;
        };
        return type == null ? null
                            : new Verdict.Refuse(null, null, null, route, type, lookup.message(), Duration.ZERO);
    }

    private Verdict prerouted(RoutingSnapshot s, String method, String path, RequestView view, UnitLookup lookup,
                              String stamp) {
        if (lookup.outcome() == UnitLookup.Outcome.AMBIGUOUS_KEY) { // a peer would not send it: the service might
            return unroutable(lookup, PREROUTED);
        }
        boolean derived = lookup.outcome() == UnitLookup.Outcome.UNIT || lookup.outcome() == UnitLookup.Outcome.CENTER;
        Unit unit = derived ? lookup.unit() : null;
        String unitId = unit == null ? null : unit.id();
        Region home = derived ? lookup.region() : null;
        Region target = s.topology().region(stamp).orElse(null);
        if (target == null) {
            return new Verdict.Refuse(unitId, home, null, PREROUTED, ProblemType.UNKNOWN_REGION,
                                      stampName + ": '" + stamp + "' names no region of the topology", Duration.ZERO);
        }
        if (!derived && !s.fences().fences().isEmpty() && s.fences().writes().isWrite(method, path)) {
            return new Verdict.Refuse(null, null, target, PREROUTED, ProblemType.WRITE_FENCED,
                                      "a pre-routed write whose unit cannot be told from its key (" + lookup.message()
                                      + ") is refused while units are fenced", DEFAULT_RETRY_AFTER);
        }
        return target(s, method, path, view, unit, home, target, PREROUTED);
    }

    /**
     * A request whose target is known: the write fence first, then the gray version (only where the unit is at
     * home: another region need not run the same versions).
     */
    private Verdict target(RoutingSnapshot s, String method, String path, RequestView view, Unit unit, Region home,
                           Region target, String route) {
        String unitId = unit == null ? null : unit.id();
        Verdict.Refuse fenced = fence(s, unitId, home, target, route, method, path);
        if (fenced != null) {
            return fenced;
        }
        String version = unit != null && target.equals(self) && home.equals(self)
                         ? s.rules().grayVersion(unit, view) : null;
        return forwards.forward(unitId, home, target, route, version);
    }

    /**
     * The fence's refusal of a {@code method} request of {@code path} for unit {@code unitId} served in
     * {@code target} ({@code null}: not known), or {@code null} when it passes: a fenced unit's writes are refused
     * with the fence's retry-after; a throttled unit's pass at the fence's rate, taking a token.
     */
    public static Verdict.Refuse fence(RoutingSnapshot s, String unitId, Region home, Region target, String route,
                                       String method, String path) {
        if (unitId == null) {
            return null;
        }
        FencePolicy fence = s.fences().fenceFor(unitId, method, path);
        if (fence == null) {
            return null;
        }
        if (fence.mode() == FencePolicy.Mode.THROTTLE) {
            TokenBucket bucket = s.throttles().get(unitId);
            long waitNanos = bucket == null ? 0 : bucket.tryTake();
            if (waitNanos == 0) {
                return null;
            }
            return new Verdict.Refuse(unitId, home, target, route, ProblemType.WRITE_FENCED,
                    "writes of unit " + unitId + " are throttled while its data catches up"
                    + (target == null ? "" : " in " + target),
                    Duration.ofSeconds(Math.max(1, (waitNanos + 999_999_999L) / 1_000_000_000L)));
        }
        return new Verdict.Refuse(unitId, home, target, route, ProblemType.WRITE_FENCED,
                                  "writes of unit " + unitId + " are fenced while its data moves; reads still pass",
                                  fence.retryAfter());
    }
}
