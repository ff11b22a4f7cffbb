package io.unitas.control.client.wire;

import java.util.List;
import java.util.Map;

/**
 * A switchover as the control plane shows it ({@code GET /api/v1/switchovers/{id}}, and inside the state).
 *
 * @param id      its id ({@code sw-1})
 * @param phase   {@code fencing}, {@code catching_up}, {@code flipped}, {@code completed}, {@code rolled_back} or
 *                {@code aborted}
 * @param units   the units it moves
 * @param target  where to
 * @param rpoMs   for a promotion, each unit's last known lag in milliseconds ({@code -1}: never measured); else empty
 * @param outcome how it ended ({@code ""} while running)
 * @param steps   its steps so far, oldest first
 */
public record SwitchoverView(String id, String phase, List<String> units, String target, Map<String, Long> rpoMs,
                             String outcome, List<Step> steps) {

    public SwitchoverView {
        units = List.copyOf(units);
        rpoMs = Map.copyOf(rpoMs);
        steps = List.copyOf(steps);
    }

    /** Whether it has ended: completed, rolled back or aborted. */
    public boolean ended() {
        return phase.equals("completed") || phase.equals("rolled_back") || phase.equals("aborted");
    }

    /**
     * One step of a switchover.
     *
     * @param phase  the phase it entered
     * @param at     when (RFC 3339)
     * @param detail why, in words
     */
    public record Step(String phase, String at, String detail) {}
}
