package io.unitas.spring;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingSnapshot;
import io.unitas.core.ProblemDetail;
import io.unitas.core.ProblemType;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.Router;
import io.unitas.core.Topology;
import io.unitas.core.WriteGuard;
import io.unitas.core.rules.Unit;

/**
 * What the Servlet and the WebFlux guard both ask of a request: is it a write of a unit that this region does not take
 * by the routing state in force ({@link WriteGuard})? Then the problem it is refused with ({@code refuse}), or
 * {@code null} ({@code allow}, and every read).
 */
final class WriteGuardDecision {

    /** The guard's modes: refuse with 421, forward to where the unit's writes go now ({@link WriteForwarder}), allow. */
    enum Mode { REFUSE, FORWARD, ALLOW }

    private final Region region;
    private final Mode mode;
    private final ReadOnlyPolicy onReadOnly;
    private final Duration holdDown;
    private final Clock clock;
    // The router of the last topology seen, rebuilt only when the topology changes (a router precomputes).
    private volatile Router router;

    private WriteGuardDecision(Region region, Mode mode, ReadOnlyPolicy onReadOnly, Duration holdDown, Clock clock) {
        this.region = region;
        this.mode = mode;
        this.onReadOnly = onReadOnly;
        this.holdDown = holdDown;
        this.clock = clock;
    }

    /**
     * The guard {@code unitas.write-guard.*} describes for the service in {@code region}.
     *
     * @throws UnitasConfigurationException naming each wrong property, one line each
     */
    static WriteGuardDecision of(String region, WriteGuardProperties settings, Clock clock) {
        List<String> problems = new ArrayList<>();
        Mode mode = null;
        String m = settings.getMode() == null ? "" : settings.getMode().trim();
        switch (m) {
            case "refuse" -> mode = Mode.REFUSE;
            case "allow" -> mode = Mode.ALLOW;
            case "forward" -> mode = Mode.FORWARD;
            default -> problems.add("unitas.write-guard.mode: '" + settings.getMode()
                                    + "' (expected: refuse, the default, forward or allow)");
        }
        ReadOnlyPolicy policy = null;
        try {
            policy = ReadOnlyPolicy.fromJson(settings.getOnReadOnly() == null ? "" : settings.getOnReadOnly().trim());
        } catch (IllegalArgumentException e) {
            problems.add("unitas.write-guard.on-read-only: " + e.getMessage());
        }
        Duration holdDown = settings.getHoldDown();
        if (holdDown == null || holdDown.isNegative()) {
            problems.add("unitas.write-guard.hold-down: '" + holdDown + "' (expected: a duration >= 0, e.g. 5s, as"
                         + " the gateways' routing.hold_down)");
        }
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
        return new WriteGuardDecision(Region.of(region), mode, policy, holdDown, clock);
    }

    /**
     * The problem a {@code method} request of {@code path} with {@code context} is refused with here: 421
     * {@code not-home-region} for a write of a unit this region does not take now, in {@code refuse} mode; else
     * {@code null}.
     */
    ProblemDetail refusal(RoutingContext context, RoutingSnapshot snapshot, String method, String path) {
        Refusal refused = refused(context, snapshot, method, path);
        return refused == null ? null : refused.problem();
    }

    /**
     * Why a {@code method} request of {@code path} with {@code context} is not served here, with where its unit's
     * writes go now; {@code null} when it is served (a read, a write this region takes, {@code allow} mode).
     */
    Refusal refused(RoutingContext context, RoutingSnapshot snapshot, String method, String path) {
        if (mode == Mode.ALLOW || context.unit() == null || !snapshot.fences().writes().isWrite(method, path)) {
            return null;
        }
        return refusedWrite(context, snapshot);
    }

    /**
     * As {@link #refused}, for a call already known to be a write (a gRPC method that is not safe), whatever the
     * mode but {@code allow}.
     */
    Refusal refusedWrite(RoutingContext context, RoutingSnapshot snapshot) {
        if (mode == Mode.ALLOW || context.unit() == null) {
            return null;
        }
        Unit unit = snapshot.rules().unit(context.unit());
        if (unit == null) {
            return null; // a unit the rules do not know has no home to send it to
        }
        WriteGuard.Verdict verdict = WriteGuard.judge(router(snapshot.rules().topology()), snapshot.health(),
                                                      unit.home(), region, clock.millis(), onReadOnly);
        if (verdict.served()) {
            return null;
        }
        return new Refusal(ProblemType.NOT_HOME_REGION.problem(verdict.message(unit.id()))
                                      .with("unit", unit.id()).with("home", verdict.home().id())
                                      .with("region", region.id()),
                           verdict.target());
    }

    /**
     * A write refused here: the 421 {@code not-home-region} problem, and the region that takes the unit's writes now
     * ({@code null} when none does).
     */
    record Refusal(ProblemDetail problem, Region target) {}

    private Router router(Topology topology) {
        Router r = router;
        if (r == null || !r.topology().equals(topology)) {
            r = Router.of(topology, holdDown);
            router = r;
        }
        return r;
    }
}
