package io.unitas.core.switchover;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;

/**
 * One move of units to a target region, as a value: what moves, the limits it runs under, the phase it is in
 * and every step so far. {@link #advance} is the whole state machine: plan → fence → catch up → flip → unfence,
 * or roll back when the deadline passes first. Unlike a fixed sleep, it flips only on measured lag.
 *
 * @param id          a unique id ({@code sw-3})
 * @param units       the moving units, in request order
 * @param target      the region that becomes their home
 * @param origins     each moving unit's home before the switchover
 * @param maxLagMs    the target's replication lag, in milliseconds, at or below which the flip may happen
 * @param deadline    past this instant, a switchover that has not flipped rolls back
 * @param forced      whether an overload refusal of the plan was overridden
 * @param requestedBy who asked for it (a token's name)
 * @param reason      why they asked
 * @param phase       where it stands
 * @param steps       every phase entered so far, with its time
 * @param outcome     why it ended, empty while it runs
 */
public record Switchover(String id, List<String> units, Region target, Map<String, Region> origins, long maxLagMs,
                         Instant deadline, boolean forced, String requestedBy, String reason,
                         SwitchoverPhase phase, List<SwitchoverStep> steps, String outcome) {

    /** Validates limits and freezes the collections. */
    public Switchover {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(deadline, "deadline");
        Objects.requireNonNull(requestedBy, "requestedBy");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(outcome, "outcome");
        if (units.isEmpty()) {
            throw new IllegalArgumentException("units: [] (expected: at least one unit)");
        }
        if (maxLagMs < 0) {
            throw new IllegalArgumentException("max_lag_ms: " + maxLagMs + " (expected: >= 0)");
        }
        units = List.copyOf(units);
        origins = Collections.unmodifiableMap(new LinkedHashMap<>(origins));
        steps = List.copyOf(steps);
    }

    /** A new switchover in {@link SwitchoverPhase#FENCING}, its first step recorded at {@code now}. */
    public static Switchover start(String id, List<String> units, Region target, Map<String, Region> origins,
                                   long maxLagMs, Instant deadline, boolean forced, String requestedBy,
                                   String reason, Instant now) {
        SwitchoverStep first = new SwitchoverStep(SwitchoverPhase.FENCING, now,
                "moving " + String.join(", ", units) + " to " + target + " (max_lag " + maxLagMs
                + " ms, deadline " + deadline + ")");
        return new Switchover(id, units, target, origins, maxLagMs, deadline, forced, requestedBy, reason,
                              SwitchoverPhase.FENCING, List.of(first), "");
    }

    /**
     * The next state given the time and the target's measured replication lag ({@link RegionHealth#UNKNOWN_LAG}
     * when there is no fresh measurement), or {@code this} when nothing changes. Fencing always happens first;
     * catching up flips once the lag is at most {@link #maxLagMs()}, or rolls back once {@code now} is past the
     * deadline; a flipped switchover always completes (the mapping has already changed, so it is never undone).
     */
    public Switchover advance(Instant now, long targetLagMs) {
        return switch (phase) {
            case FENCING -> now.isAfter(deadline)
                    ? end(SwitchoverPhase.ROLLED_BACK, now, "deadline " + deadline + " passed before fencing")
                    : enter(SwitchoverPhase.CATCHING_UP, now, "fenced writes of " + String.join(", ", units));
            case CATCHING_UP -> {
                if (targetLagMs != RegionHealth.UNKNOWN_LAG && targetLagMs <= maxLagMs) {
                    yield enter(SwitchoverPhase.FLIPPED, now, "target " + target + " lag " + targetLagMs
                            + " ms <= max_lag " + maxLagMs + " ms; home of " + String.join(", ", units)
                            + " is now " + target);
                }
                if (now.isAfter(deadline)) {
                    yield end(SwitchoverPhase.ROLLED_BACK, now, "deadline " + deadline + " passed: " + lagText(
                            targetLagMs) + "; fences lifted, mapping unchanged");
                }
                yield this;
            }
            case FLIPPED -> end(SwitchoverPhase.COMPLETED, now, "unfenced " + String.join(", ", units));
            case COMPLETED, ROLLED_BACK, ABORTED -> this;
        };
    }

    /** Whether {@link #abort} would succeed: the mapping has not flipped yet. */
    public boolean abortable() {
        return phase == SwitchoverPhase.FENCING || phase == SwitchoverPhase.CATCHING_UP;
    }

    /**
     * This switchover aborted at {@code now} by {@code who}: fences lifted, mapping unchanged.
     *
     * @throws IllegalStateException when it is not {@link #abortable()}
     */
    public Switchover abort(Instant now, String who, String why) {
        if (!abortable()) {
            throw new IllegalStateException("switchover " + id + ": " + phase.jsonName()
                                            + " (expected: fencing or catching_up to abort)");
        }
        return end(SwitchoverPhase.ABORTED, now, "aborted by " + who + (why.isEmpty() ? "" : ": " + why));
    }

    /** When the last step happened. */
    public Instant updatedAt() {
        return steps.get(steps.size() - 1).at();
    }

    private String lagText(long lagMs) {
        return lagMs == RegionHealth.UNKNOWN_LAG
                ? "target " + target + " lag unknown (no fresh measurement)"
                : "target " + target + " lag " + lagMs + " ms > max_lag " + maxLagMs + " ms";
    }

    private Switchover enter(SwitchoverPhase next, Instant now, String detail) {
        List<SwitchoverStep> more = new ArrayList<>(steps);
        more.add(new SwitchoverStep(next, now, detail));
        return new Switchover(id, units, target, origins, maxLagMs, deadline, forced, requestedBy, reason, next,
                              more, outcome);
    }

    private Switchover end(SwitchoverPhase last, Instant now, String detail) {
        Switchover ended = enter(last, now, detail);
        return new Switchover(id, units, target, origins, maxLagMs, deadline, forced, requestedBy, reason, last,
                              ended.steps, detail);
    }
}
