package io.unitas.core.switchover;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.health.UnitLag;

/**
 * One move of units to a target region, as a value: what moves, the limits it runs under, the phase it is in
 * and every step so far. {@link #advance} is the whole state machine: plan → fence → catch up → flip → unfence,
 * or roll back when the deadline passes first. Unlike a fixed sleep, it flips only on measured lag: the moving
 * units' lag from their homes to the target ({@link MovingLag}). A <em>promotion</em> moves units whose home cannot
 * ship without waiting, and records what may be lost: each unit's last known lag (its RPO).
 *
 * @param id          a unique id ({@code sw-3})
 * @param units       the moving units, in request order
 * @param target      the region that becomes their home
 * @param origins     each moving unit's home before the switchover
 * @param maxLagMs    the moving units' replication lag, in milliseconds, at or below which the flip may happen
 * @param deadline    past this instant, a switchover that has not flipped rolls back
 * @param forced      whether an overload refusal of the plan was overridden
 * @param requestedBy who asked for it (a token's name)
 * @param reason      why they asked
 * @param phase       where it stands
 * @param steps       every phase entered so far, with its time
 * @param outcome     why it ended, empty while it runs
 * @param rpoMs       for a promotion, each unit's last known lag in milliseconds when it moved (what may not have
 *                    shipped; {@link RegionHealth#UNKNOWN_LAG} when never measured); empty for a switchover
 * @param rpoChanges  for a promotion, how many of each unit's changes the target had not applied when it moved, as
 *                    far as measured ({@link UnitLag#UNKNOWN_CHANGES} when not counted); empty for a switchover
 */
public record Switchover(String id, List<String> units, Region target, Map<String, Region> origins, long maxLagMs,
                         Instant deadline, boolean forced, String requestedBy, String reason,
                         SwitchoverPhase phase, List<SwitchoverStep> steps, String outcome, Map<String, Long> rpoMs,
                         Map<String, Long> rpoChanges) {

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
        rpoMs = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(rpoMs, "rpoMs")));
        rpoChanges = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(rpoChanges,
                                                                                            "rpoChanges")));
    }

    /** A switchover, or a promotion whose RPO counts no changes. */
    public Switchover(String id, List<String> units, Region target, Map<String, Region> origins, long maxLagMs,
                      Instant deadline, boolean forced, String requestedBy, String reason, SwitchoverPhase phase,
                      List<SwitchoverStep> steps, String outcome, Map<String, Long> rpoMs) {
        this(id, units, target, origins, maxLagMs, deadline, forced, requestedBy, reason, phase, steps, outcome, rpoMs,
             Map.of());
    }

    /** A switchover that waits on lag (no RPO). */
    public Switchover(String id, List<String> units, Region target, Map<String, Region> origins, long maxLagMs,
                      Instant deadline, boolean forced, String requestedBy, String reason, SwitchoverPhase phase,
                      List<SwitchoverStep> steps, String outcome) {
        this(id, units, target, origins, maxLagMs, deadline, forced, requestedBy, reason, phase, steps, outcome,
             Map.of());
    }

    /**
     * A new promotion in {@link SwitchoverPhase#FENCING}: it fences, then flips without waiting on lag (the old home
     * cannot ship), recording {@code rpoMs}, each unit's last known lag to the target.
     */
    public static Switchover promote(String id, List<String> units, Region target, Map<String, Region> origins,
                                     Map<String, Long> rpoMs, Instant deadline, boolean forced, String requestedBy,
                                     String reason, Instant now) {
        return promote(id, units, target, origins, rpoMs, Map.of(), deadline, forced, requestedBy, reason, now);
    }

    /**
     * A new promotion recording, beside each unit's last known lag, {@code rpoChanges}: how many of its changes the
     * target had not applied as last measured.
     */
    public static Switchover promote(String id, List<String> units, Region target, Map<String, Region> origins,
                                     Map<String, Long> rpoMs, Map<String, Long> rpoChanges, Instant deadline,
                                     boolean forced, String requestedBy, String reason, Instant now) {
        Map<String, Long> rpo = new LinkedHashMap<>();
        units.forEach(u -> rpo.put(u, rpoMs.getOrDefault(u, RegionHealth.UNKNOWN_LAG)));
        Map<String, Long> changes = new LinkedHashMap<>();
        if (rpoChanges.values().stream().anyMatch(n -> n != UnitLag.UNKNOWN_CHANGES)) {
            units.forEach(u -> changes.put(u, rpoChanges.getOrDefault(u, UnitLag.UNKNOWN_CHANGES)));
        }
        SwitchoverStep first = new SwitchoverStep(SwitchoverPhase.FENCING, now, "promoting "
                + String.join(", ", units) + " to " + target + " without waiting on lag (RPO "
                + rpoText(rpo, changes) + ")");
        return new Switchover(id, units, target, origins, 0, deadline, forced, requestedBy, reason,
                              SwitchoverPhase.FENCING, List.of(first), "", rpo, changes);
    }

    /** Whether this moves units without waiting on their lag. */
    public boolean promotion() {
        return !rpoMs.isEmpty();
    }

    /** {@code u-cn 1200 ms (3 changes), u-sh unknown}. */
    static String rpoText(Map<String, Long> rpo, Map<String, Long> changes) {
        List<String> parts = new ArrayList<>();
        rpo.forEach((u, ms) -> {
            long n = changes.getOrDefault(u, UnitLag.UNKNOWN_CHANGES);
            parts.add(u + " " + (ms == RegionHealth.UNKNOWN_LAG ? "unknown" : ms + " ms")
                      + (n == UnitLag.UNKNOWN_CHANGES ? "" : " (" + n + (n == 1 ? " change)" : " changes)")));
        });
        return String.join(", ", parts);
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
     * The next state given the time and a lag measured as one number ({@link RegionHealth#UNKNOWN_LAG} when there is
     * no fresh measurement): {@link #advance(Instant, MovingLag)} with the target named in the detail.
     */
    public Switchover advance(Instant now, long targetLagMs) {
        return advance(now, targetLagMs == RegionHealth.UNKNOWN_LAG
                ? MovingLag.unknown("target " + target + " lag unknown (no fresh measurement)")
                : new MovingLag(targetLagMs, "target " + target + " lag " + targetLagMs + " ms"));
    }

    /**
     * The next state given the time and the moving units' measured lag, or {@code this} when nothing changes.
     * Fencing always happens first; catching up flips once the lag is known and at most {@link #maxLagMs()}, or
     * rolls back once {@code now} is past the deadline; a promotion flips without waiting; a flipped switchover
     * always completes (the mapping has already changed, so it is never undone).
     */
    public Switchover advance(Instant now, MovingLag lag) {
        return switch (phase) {
            case FENCING -> now.isAfter(deadline) && !promotion()
                    ? end(SwitchoverPhase.ROLLED_BACK, now, "deadline " + deadline + " passed before fencing")
                    : enter(SwitchoverPhase.CATCHING_UP, now, "fenced writes of " + String.join(", ", units));
            case CATCHING_UP -> {
                if (promotion()) {
                    yield enter(SwitchoverPhase.FLIPPED, now, "promoted without waiting on lag (RPO "
                            + rpoText(rpoMs, rpoChanges) + "); home of " + String.join(", ", units) + " is now " + target);
                }
                if (lag.known() && lag.lagMs() <= maxLagMs) {
                    yield enter(SwitchoverPhase.FLIPPED, now, lag.detail() + " (lag " + lag.lagMs()
                            + " ms <= max_lag " + maxLagMs + " ms); home of " + String.join(", ", units)
                            + " is now " + target);
                }
                if (now.isAfter(deadline)) {
                    yield end(SwitchoverPhase.ROLLED_BACK, now, "deadline " + deadline + " passed: " + lag.detail()
                            + (lag.known() ? " > max_lag " + maxLagMs + " ms" : "")
                            + "; fences lifted, mapping unchanged");
                }
                yield this;
            }
            case FLIPPED -> end(SwitchoverPhase.COMPLETED, now, "unfenced " + String.join(", ", units));
            case COMPLETED, ROLLED_BACK, ABORTED -> this;
        };
    }

    /**
     * What a write refused by this move's fence, put up at {@code fencedAt}, is told to wait: about as long as the
     * fence is expected to hold. A promotion's fence holds two of the control plane's ticks (it flips on the next
     * and unfences on the one after, waiting on nothing), so its writes come back after one {@code tick}; a
     * switchover's holds until its lag is low enough, at most until its deadline, so its writes come back after what
     * is left of that. Whole seconds (what {@code Retry-After} can say), rounded up, at least one and never more than
     * {@link FencePolicy#DEFAULT_RETRY_AFTER}.
     */
    public Duration fenceRetryAfter(Instant fencedAt, Duration tick) {
        Duration expected = promotion() ? tick : Duration.between(fencedAt, deadline);
        long seconds = expected.getSeconds() + (expected.getNano() > 0 ? 1 : 0);
        return Duration.ofSeconds(Math.max(1, Math.min(seconds, FencePolicy.DEFAULT_RETRY_AFTER.getSeconds())));
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

    /** When its fence went up (it entered {@link SwitchoverPhase#CATCHING_UP}); {@link Instant#MAX} before that. */
    public Instant fencedAt() {
        return steps.stream().filter(st -> st.phase() == SwitchoverPhase.CATCHING_UP).map(SwitchoverStep::at)
                    .findFirst().orElse(Instant.MAX);
    }

    /** When the last step happened. */
    public Instant updatedAt() {
        return steps.get(steps.size() - 1).at();
    }

    private Switchover enter(SwitchoverPhase next, Instant now, String detail) {
        List<SwitchoverStep> more = new ArrayList<>(steps);
        more.add(new SwitchoverStep(next, now, detail));
        return new Switchover(id, units, target, origins, maxLagMs, deadline, forced, requestedBy, reason, next,
                              more, outcome, rpoMs, rpoChanges);
    }

    private Switchover end(SwitchoverPhase last, Instant now, String detail) {
        Switchover ended = enter(last, now, detail);
        return new Switchover(id, units, target, origins, maxLagMs, deadline, forced, requestedBy, reason, last,
                              ended.steps, detail, rpoMs, rpoChanges);
    }
}
