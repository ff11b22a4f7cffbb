package io.unitas.core.switchover;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.unitas.core.Problem;

/**
 * The least time between two moves of one unit: a unit whose switchover flipped at {@code t} may not be moved
 * again before {@code t + cooldown}, so a flapping signal (or an operator's second thought) cannot bounce a unit
 * between regions faster than its data and caches settle. Only a flip counts: a switchover rolled back or
 * aborted moved nothing. Pure: the caller passes the switchovers it knows and the time.
 *
 * @param cooldown the least time between two flips of one unit; zero turns the rule off
 */
public record SwitchoverCooldown(Duration cooldown) {

    /** One minute: longer than a gateway's hold-down and a DNS answer's TTL, short enough for a real second move. */
    public static final SwitchoverCooldown DEFAULT = new SwitchoverCooldown(Duration.ofMinutes(1));

    /** Refuses a negative cooldown. */
    public SwitchoverCooldown {
        Objects.requireNonNull(cooldown, "cooldown");
        if (cooldown.isNegative()) {
            throw new IllegalArgumentException("switchover_cooldown: " + cooldown + " (expected: >= 0)");
        }
    }

    /**
     * Why each of {@code units} may not move at {@code now}, given the switchovers {@code past}: one problem per
     * unit still cooling down, with its path in the request ({@code units[0]}), naming the switchover that moved
     * it and when it may move again; empty when all may move.
     */
    public List<Problem> refusals(List<String> units, List<Switchover> past, Instant now) {
        List<Problem> problems = new ArrayList<>();
        for (int i = 0; i < units.size(); i++) {
            String unit = units.get(i);
            Switchover last = null;
            Instant flipped = null;
            for (Switchover s : past) {
                Instant at = flippedAt(s);
                if (at != null && s.units().contains(unit) && (flipped == null || at.isAfter(flipped))) {
                    last = s;
                    flipped = at;
                }
            }
            if (last == null) {
                continue;
            }
            Instant movable = flipped.plus(cooldown);
            if (now.isBefore(movable)) {
                problems.add(new Problem("units[" + i + "]", "unit '" + unit + "' moved to " + last.target() + " at "
                        + flipped + " (switchover " + last.id() + "); it may move again at " + movable
                        + " (switchover cooldown " + cooldown + ")"));
            }
        }
        return problems;
    }

    /** When {@code s} flipped its units' home, or {@code null} when it has not. */
    private static Instant flippedAt(Switchover s) {
        for (SwitchoverStep step : s.steps()) {
            if (step.phase() == SwitchoverPhase.FLIPPED) {
                return step.at();
            }
        }
        return null;
    }
}
