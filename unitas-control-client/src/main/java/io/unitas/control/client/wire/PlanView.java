package io.unitas.control.client.wire;

import java.util.List;
import java.util.Map;

/**
 * A switchover's plan: the moves, each region's load before and after, and what the planner warns about.
 *
 * @param accepted whether the plan may run
 * @param target   the region the units move to
 * @param moves    the units that move
 * @param load     each region's load before and after
 * @param warnings what the planner warns about, in words
 */
public record PlanView(boolean accepted, String target, List<Move> moves, Map<String, Load> load,
                       List<String> warnings) {

    public PlanView {
        moves = List.copyOf(moves);
        load = Map.copyOf(load);
        warnings = List.copyOf(warnings);
    }

    /** One unit's move and its load. */
    public record Move(String unit, String from, String to, double load) {}

    /** A region's load before and after the plan. */
    public record Load(double before, double after) {}
}
