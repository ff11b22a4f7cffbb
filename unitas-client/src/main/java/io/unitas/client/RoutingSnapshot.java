package io.unitas.client;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Router;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.UnitRules;

/**
 * The routing state a service sees at one moment: unit rules (and their topology), region health and write fences,
 * from a control plane's watch or from static files. A service's view of the core's one
 * {@link io.unitas.core.routing.RoutingSnapshot} ({@link #state()}), which every decision reads
 * ({@link io.unitas.core.routing.RoutingDecision}); a service's snapshot always has unit rules. Immutable apart from
 * the token buckets of throttled units, which a newer snapshot takes over from the one it replaces ({@link #next}).
 */
public final class RoutingSnapshot {

    /**
     * The time a service's snapshot is built at, as far as health goes: a service keeps no hold-down history, so a
     * region its health file or feed calls healthy is admitted at once.
     */
    private static final long NO_HISTORY_MS = 0L;

    private final io.unitas.core.routing.RoutingSnapshot state;

    private RoutingSnapshot(io.unitas.core.routing.RoutingSnapshot state) {
        this.state = state;
    }

    /** A snapshot without hold-down, throttles metered by {@link System#nanoTime()}. */
    public static RoutingSnapshot of(UnitRules rules, HealthSnapshot health, WriteFences fences) {
        return of(rules, health, fences, Duration.ZERO, System::nanoTime);
    }

    /** The snapshot that replaces this one; throttled units whose fence is unchanged keep their token bucket. */
    public RoutingSnapshot next(UnitRules rules, HealthSnapshot health, WriteFences fences, LongSupplier nanoTicker) {
        Objects.requireNonNull(rules, "rules");
        return new RoutingSnapshot(io.unitas.core.routing.RoutingSnapshot.next(
                state, rules.topology(), rules, health, fences, nanoTicker, NO_HISTORY_MS, state.router().holdDown()));
    }

    /** A first snapshot with a hold-down and a ticker of its own (for tests and controlled clocks). */
    public static RoutingSnapshot of(UnitRules rules, HealthSnapshot health, WriteFences fences, Duration holdDown,
                                     LongSupplier nanoTicker) {
        Objects.requireNonNull(rules, "rules");
        return new RoutingSnapshot(io.unitas.core.routing.RoutingSnapshot.of(
                rules.topology(), rules, health, fences, nanoTicker, NO_HISTORY_MS, holdDown));
    }

    /** The core's snapshot this is a view of: what {@link io.unitas.core.routing.RoutingDecision} decides over. */
    public io.unitas.core.routing.RoutingSnapshot state() {
        return state;
    }

    /** The unit rules, whose topology is the regions'. */
    public UnitRules rules() {
        return state.rules();
    }

    /** Region health. */
    public HealthSnapshot health() {
        return state.health();
    }

    /** The fenced units. */
    public WriteFences fences() {
        return state.fences();
    }

    /** The router over the rules' topology. */
    public Router router() {
        return state.router();
    }

    @Override
    public String toString() {
        return "RoutingSnapshot{units=" + rules().units().size() + ", health=" + health() + ", fences="
               + fences().fences().keySet() + '}';
    }
}
