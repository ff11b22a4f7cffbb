package io.unitas.client;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.ProblemDetail;
import io.unitas.core.Router;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.TokenBucket;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.UnitRules;

/**
 * The routing state a service sees at one moment: unit rules (and their topology), region health and write fences,
 * from a control plane's watch or from static files. Immutable apart from the token buckets of throttled units, which
 * a newer snapshot takes over from the one it replaces ({@link #next}).
 */
public final class RoutingSnapshot {

    private final UnitRules rules;
    private final HealthSnapshot health;
    private final WriteFences fences;
    private final Router router;
    private final Map<String, TokenBucket> throttles;

    private RoutingSnapshot(UnitRules rules, HealthSnapshot health, WriteFences fences, Duration holdDown,
                            RoutingSnapshot previous, LongSupplier nanoTicker) {
        this.rules = Objects.requireNonNull(rules, "rules");
        this.health = Objects.requireNonNull(health, "health");
        this.fences = Objects.requireNonNull(fences, "fences");
        this.router = Router.of(rules.topology(), holdDown);
        Map<String, TokenBucket> buckets = new HashMap<>();
        fences.fences().forEach((unit, fence) -> {
            if (fence.mode() == FencePolicy.Mode.THROTTLE) {
                boolean same = previous != null && fence.equals(previous.fences.fences().get(unit))
                               && previous.throttles.containsKey(unit);
                buckets.put(unit, same ? previous.throttles.get(unit) : TokenBucket.of(fence, nanoTicker));
            }
        });
        this.throttles = Map.copyOf(buckets);
    }

    /** A snapshot without hold-down, throttles metered by {@link System#nanoTime()}. */
    public static RoutingSnapshot of(UnitRules rules, HealthSnapshot health, WriteFences fences) {
        return new RoutingSnapshot(rules, health, fences, Duration.ZERO, null, System::nanoTime);
    }

    /** The snapshot that replaces this one; throttled units whose fence is unchanged keep their token bucket. */
    public RoutingSnapshot next(UnitRules rules, HealthSnapshot health, WriteFences fences, LongSupplier nanoTicker) {
        return new RoutingSnapshot(rules, health, fences, router.holdDown(), this, nanoTicker);
    }

    /** A first snapshot with a hold-down and a ticker of its own (for tests and controlled clocks). */
    public static RoutingSnapshot of(UnitRules rules, HealthSnapshot health, WriteFences fences, Duration holdDown,
                                     LongSupplier nanoTicker) {
        return new RoutingSnapshot(rules, health, fences, holdDown, null, nanoTicker);
    }

    /** The unit rules, whose topology is the regions'. */
    public UnitRules rules() {
        return rules;
    }

    /** Region health. */
    public HealthSnapshot health() {
        return health;
    }

    /** The fenced units. */
    public WriteFences fences() {
        return fences;
    }

    /** The router over the rules' topology. */
    public Router router() {
        return router;
    }

    /**
     * Whether a {@code method} request of {@code path} for {@code unit} is fenced now: the gateway's answer to it
     * (503 {@code write-fenced} with {@code Retry-After}), or {@code null} when it passes. A throttled unit lets
     * writes through at its fence's rate.
     */
    public ProblemDetail fenced(String unit, String method, String path) {
        if (unit == null) {
            return null;
        }
        FencePolicy fence = fences.fenceFor(unit, method, path);
        if (fence == null) {
            return null;
        }
        if (fence.mode() == FencePolicy.Mode.THROTTLE) {
            TokenBucket bucket = throttles.get(unit);
            long waitNanos = bucket == null ? 0 : bucket.tryTake();
            if (waitNanos == 0) {
                return null;
            }
            return ProblemDetail.of(503, "write-fenced", "writes of unit " + unit
                                    + " are throttled while its data catches up",
                                    Duration.ofSeconds(Math.max(1, (waitNanos + 999_999_999L) / 1_000_000_000L)));
        }
        return ProblemDetail.of(503, "write-fenced",
                                "writes of unit " + unit + " are fenced while its data moves; reads still pass",
                                fence.retryAfter());
    }

    @Override
    public String toString() {
        return "RoutingSnapshot{units=" + rules.units().size() + ", health=" + health + ", fences="
               + fences.fences().keySet() + '}';
    }
}
